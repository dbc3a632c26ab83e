"""A webcam looking down at the table: pose, intrinsics and lens distortion.

World coordinates are millimetres on the table plane (z = 0, z up), origin under the point the
camera looks at. Rendering happens in undistorted pixels through the plane-to-image homography;
lens distortion is applied to the finished frame with a remap, and label points go through
cv2.projectPoints with the same coefficients, so images and labels agree.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

FRAMES = ((1280, 720), (1920, 1080), (960, 720), (1280, 960), (1024, 576))
FRAME_WEIGHTS = (0.45, 0.15, 0.15, 0.15, 0.10)
CLOSE_FRAMES = ((1280, 960), (1280, 720))   # a phone's photo, turned portrait about half the time
CLOSE_FRAME_WEIGHTS = (0.6, 0.4)
CLOSE_DISTANCE = (110, 330)                 # mm from the phone to the point it looks at


@dataclass
class Camera:
    width: int
    height: int
    K: np.ndarray          # 3x3 intrinsics
    R: np.ndarray          # 3x3 world -> camera rotation
    t: np.ndarray          # 3 translation (camera = R @ world + t)
    dist: np.ndarray       # k1, k2, p1, p2, k3
    tilt: float            # degrees from looking straight down
    distance: float        # mm from the camera to the point it looks at
    hfov: float            # degrees

    @property
    def homography(self) -> np.ndarray:
        """Table plane (mm, homogeneous) to undistorted pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 2) in mm to distorted pixel coordinates (N, 2)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        obj = np.column_stack([pts, np.zeros(len(pts))])
        rvec, _ = cv2.Rodrigues(self.R)
        img, _ = cv2.projectPoints(obj, rvec, self.t, self.K, self.dist)
        return img.reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Table points (N, 2) in mm to undistorted pixels (N, 2), as the renderer draws them."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_table(self, pixels: np.ndarray) -> np.ndarray:
        """Undistorted pixels (N, 2) back to the table plane (mm)."""
        pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def distortion_maps(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Maps for cv2.remap: for each output (distorted) pixel, where it lies in the undistorted
        render. Computed on a coarse grid and interpolated (the field is smooth)."""
        if not np.any(self.dist):
            return None
        step = 8
        gx = np.arange(0, self.width + step, step, dtype=np.float64)
        gy = np.arange(0, self.height + step, step, dtype=np.float64)
        grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(grid, self.K, self.dist, None, None, self.K,
                                      (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6))
        und = und.reshape(len(gy), len(gx), 2).astype(np.float32)
        big = cv2.resize(und, (len(gx) * step, len(gy) * step), interpolation=cv2.INTER_LINEAR)
        # resize maps grid point i to pixel i*step + (step-1)/2; shift so grid point i lands on i*step
        shift = (step - 1) / 2
        xs = np.arange(self.width, dtype=np.float32) + shift
        ys = np.arange(self.height, dtype=np.float32) + shift
        map_x = cv2.remap(big[..., 0], *np.meshgrid(xs, ys), cv2.INTER_LINEAR)
        map_y = cv2.remap(big[..., 1], *np.meshgrid(xs, ys), cv2.INTER_LINEAR)
        return map_x, map_y


def look_at(eye: np.ndarray, target: np.ndarray, azimuth: float, roll: float) -> np.ndarray:
    """World -> camera rotation for a camera at ``eye`` looking at ``target``; the image's up
    points away from the camera along the table (azimuth in radians), then rolled."""
    f = target - eye
    f /= np.linalg.norm(f)
    up = np.array([-np.cos(azimuth), -np.sin(azimuth), 0.0])
    down = -(up - up.dot(f) * f)
    down /= np.linalg.norm(down)
    right = np.cross(down, f)
    c, s = np.cos(roll), np.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    return np.vstack([right, down, f])


def _intrinsics(rng: np.random.Generator, width: int, height: int, fx: float, slack: float) -> np.ndarray:
    """The camera matrix: focal length ``fx`` pixels, the vertical one and the principal point off
    by up to about ``slack`` of the focal length and of the frame (drawn in that order)."""
    cx = width / 2 + rng.normal(0, width * slack)
    fy = fx * rng.uniform(1 - slack, 1 + slack)
    cy = height / 2 + rng.normal(0, height * slack)
    return np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]])


def _pose(rng: np.random.Generator, tilt: float, distance: float, spread: float,
          roll_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and translation of a camera ``distance`` mm from a point near the table's middle
    (``spread`` mm standard deviation), tilted ``tilt`` degrees from straight down towards a random
    azimuth, rolled a random angle (``roll_sd`` degrees standard deviation)."""
    azimuth = rng.uniform(0, 2 * np.pi)
    target = np.array([rng.normal(0, spread), rng.normal(0, spread), 0.0])
    roll = rng.normal(0, roll_sd)
    th = np.radians(tilt)
    eye = target + distance * np.array([np.sin(th) * np.cos(azimuth), np.sin(th) * np.sin(azimuth), np.cos(th)])
    R = look_at(eye, target, azimuth, np.radians(roll))
    return R, -R @ eye


def random_camera(rng: np.random.Generator, frame: tuple[int, int] | None = None,
                  close_ups: bool = False) -> Camera:
    """Height and tilt (straight down to about 45 degrees), focal length, distortion, frame shape.
    ``close_ups``: a phone held close over a few cards instead (``close_camera``)."""
    if close_ups:
        return close_camera(rng)
    if frame is None:
        frame = FRAMES[rng.choice(len(FRAMES), p=FRAME_WEIGHTS)]
    width, height = frame
    hfov = rng.uniform(50, 75)
    fx = (width / 2) / np.tan(np.radians(hfov) / 2)
    K = _intrinsics(rng, width, height, fx, 0.01)
    tilt = rng.uniform(0, 45) if rng.random() < 0.8 else rng.uniform(0, 8)
    distance = rng.uniform(420, 900)
    R, t = _pose(rng, tilt, distance, 40, 6)
    dist = np.zeros(5)
    if rng.random() < 0.6:
        dist[0] = rng.uniform(-0.25, 0.08)
        dist[1] = rng.uniform(-0.05, 0.05) if rng.random() < 0.5 else 0.0
    return Camera(width, height, K, R, t, dist, tilt, distance, hfov)


def close_camera(rng: np.random.Generator) -> Camera:
    """A phone held 11-33 cm over the table (a 63 mm card 210-720 pixels wide, spread evenly over
    sizes), tilted up to 40 degrees, a 52-60 degree field of view along the photo's long side,
    landscape or portrait, little or no lens distortion."""
    width, height = CLOSE_FRAMES[rng.choice(len(CLOSE_FRAMES), p=CLOSE_FRAME_WEIGHTS)]
    if rng.random() < 0.5:
        width, height = height, width
    long_fov = rng.uniform(52, 60)
    fx = (max(width, height) / 2) / np.tan(np.radians(long_fov) / 2)
    hfov = float(np.degrees(2 * np.arctan(width / 2 / fx)))
    K = _intrinsics(rng, width, height, fx, 0.005)
    tilt = rng.uniform(0, 40) if rng.random() < 0.75 else rng.uniform(0, 6)
    near, far = CLOSE_DISTANCE
    distance = 1 / rng.uniform(1 / far, 1 / near)
    R, t = _pose(rng, tilt, distance, 10, 5)
    dist = np.zeros(5)
    if rng.random() < 0.5:
        dist[0] = rng.uniform(-0.06, 0.03)
    return Camera(width, height, K, R, t, dist, tilt, distance, hfov)
