"""What a cheap webcam and a living-room lamp do to the picture. All on float32 RGB in [0, 1]."""
from __future__ import annotations

import cv2
import numpy as np

from .textures import noise


def soft(field: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian blur of a smooth field, done small when the blur is wide (same look, far cheaper)."""
    k = int(sigma // 3)
    if k < 2:
        return cv2.GaussianBlur(field, (0, 0), sigma)
    h, w = field.shape[:2]
    small = cv2.resize(field, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / k)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def lighting(img: np.ndarray, rng: np.random.Generator) -> dict:
    """A gradient across the table, a vignette, warm or cold light."""
    h, w = img.shape[:2]
    sh, sw = h // 8, w // 8              # the field is smooth: compute it small, then enlarge
    y, x = np.mgrid[0:sh, 0:sw].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    ramp = ((x / sw - 0.5) * np.cos(a) + (y / sh - 0.5) * np.sin(a))
    strength = rng.uniform(0.0, 0.6)
    vignette = 1 - rng.uniform(0, 0.35) * (((x / sw - 0.5) ** 2 + (y / sh - 0.5) ** 2) / 0.5)
    field = (1 + strength * ramp) * vignette * rng.uniform(0.65, 1.15)
    field *= 1 + 0.08 * noise(rng, sh, sw, 2)
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    kelvin = rng.choice(["warm", "neutral", "cold"], p=[0.4, 0.35, 0.25])
    tint = {"warm": np.array([1.0, 0.92, 0.78]), "neutral": np.ones(3),
            "cold": np.array([0.85, 0.95, 1.08])}[kelvin] * rng.uniform(0.96, 1.04, 3)
    cv2.multiply(img, cv2.merge([(field * float(t)).astype(np.float32) for t in tint]), dst=img)
    return {"light": kelvin, "gradient": round(float(strength), 3)}


def head_shadows(img: np.ndarray, rng: np.random.Generator) -> int:
    """Soft shadows of heads and shoulders leaning over the table."""
    h, w = img.shape[:2]
    count = int(rng.choice([0, 1, 2], p=[0.55, 0.35, 0.10]))
    if not count:
        return 0
    small = np.ones((h // 4, w // 4), np.float32)
    for _ in range(count):
        c = (int(rng.uniform(-0.1, 1.1) * small.shape[1]), int(rng.uniform(-0.1, 1.1) * small.shape[0]))
        axes = (int(rng.uniform(0.1, 0.3) * small.shape[1]), int(rng.uniform(0.1, 0.35) * small.shape[0]))
        cv2.ellipse(small, c, axes, rng.uniform(0, 180), 0, 360, float(rng.uniform(0.45, 0.8)), -1)
    small = cv2.GaussianBlur(small, (0, 0), small.shape[1] / 25)
    img *= cv2.resize(small, (w, h))[..., None]
    return count


def glare(img: np.ndarray, rng: np.random.Generator, glossy_mask: np.ndarray) -> int:
    """Specular spots from a lamp, strongest on glossy cards."""
    h, w = img.shape[:2]
    count = int(rng.choice([0, 1, 2, 3], p=[0.45, 0.35, 0.15, 0.05]))
    if not count:
        return 0
    spot = np.zeros((h, w), np.float32)
    for _ in range(count):
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(0.02, 0.12) * w), int(rng.uniform(0.02, 0.08) * w))
        cv2.ellipse(spot, c, axes, rng.uniform(0, 180), 0, 360, float(rng.uniform(0.25, 0.8)), -1)
    spot = soft(spot, w / 60)
    spot *= 0.25 + 0.75 * glossy_mask
    img += spot[..., None] * (1 - img) * 0.95
    return count


def blur(img: np.ndarray, rng: np.random.Generator) -> dict:
    out = {}
    if rng.random() < 0.45:
        sigma = float(rng.uniform(0.4, 2.2))
        img[:] = cv2.GaussianBlur(img, (0, 0), sigma)
        out["defocus"] = round(sigma, 2)
    if rng.random() < 0.2:
        length = int(rng.integers(3, 14))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel /= max(kernel.sum(), 1e-6)
        img[:] = cv2.filter2D(img, -1, kernel)
        out["motion"] = length
    return out


def sensor(img: np.ndarray, rng: np.random.Generator) -> dict:
    """Auto white balance errors and sensor noise (more of it in the dark)."""
    gains = rng.uniform(0.88, 1.12, 3).astype(np.float32)
    img *= gains
    sigma = float(rng.uniform(0.003, 0.04))
    grain = np.empty(img.shape, np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31)))     # cv2's generator, seeded from the scene's
    cv2.randn(grain, 0.0, 1.0)
    # shot noise grows with brightness: its amplitude, from a small copy of the picture
    h, w = img.shape[:2]
    small = cv2.resize(img, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    amp = sigma * 0.5 + np.sqrt(np.maximum(small, 0)) * sigma
    cv2.multiply(grain, cv2.resize(amp, (w, h), interpolation=cv2.INTER_LINEAR), dst=grain)
    cv2.add(img, grain, dst=img)
    return {"awb": [round(float(g), 3) for g in gains], "noise": round(sigma, 4)}


def phone_auto(img: np.ndarray, rng: np.random.Generator) -> dict:
    """A phone's auto white balance and exposure: the brightest tenth of the picture (white cards,
    a pale table) turned most of the way to neutral, and brought up near white."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    level = small.max(axis=1)
    white = small[level >= np.percentile(level, 90)].mean(0) + 1e-6
    balance = float(rng.uniform(0.7, 1.0))
    gains = (white.mean() / white) ** balance
    exposure = float(np.clip(rng.uniform(0.8, 0.97) / float((white * gains).max()), 0.7, 1.8))
    img *= (gains * exposure).astype(np.float32)
    np.clip(img, 0, 1, out=img)
    return {"auto_white": round(balance, 3), "exposure": round(exposure, 3)}


def tube_glare(img: np.ndarray, rng: np.random.Generator, glossy_mask: np.ndarray,
               count: int | None = None) -> int:
    """Fluorescent tubes mirrored in a glossy table or card: ``count`` (1-4 by default) long,
    parallel, soft-edged bright stripes a few percent of the frame wide, crossing the whole frame
    at one random angle, slightly tapered (perspective) and uneven along their length; near white
    where ``glossy_mask`` is 1, faint where it is 0."""
    h, w = img.shape[:2]
    if count is None:
        count = int(rng.choice([1, 2, 3, 4], p=[0.35, 0.3, 0.2, 0.15]))
    sh, sw = max(h // 4, 2), max(w // 4, 2)          # a smooth field: computed small, then enlarged
    y, x = np.mgrid[0:sh, 0:sw].astype(np.float32)
    x, y = (x + 0.5) * w / sw - w / 2, (y + 0.5) * h / sh - h / 2
    a = rng.uniform(0, np.pi)
    c, s = np.cos(a), np.sin(a)
    across, along = x * c + y * s, -x * s + y * c
    half = (w * abs(c) + h * abs(s)) / 2               # the frame's half extent across the stripes
    diag = float(np.hypot(w, h))
    width = rng.uniform(0.015, 0.045) * diag
    gap = rng.uniform(1.6, 5.0) * width
    start = rng.uniform(-0.6, 0.6) * half - gap * (count - 1) / 2
    taper = 1 + rng.uniform(-0.5, 0.5) * along / diag
    sharp = rng.uniform(2.0, 6.0)                      # how hard the stripe's edges are
    field = np.zeros((sh, sw), np.float32)
    for k in range(count):
        centre = start + k * gap + rng.normal(0, 0.12 * gap)
        half_width = width * rng.uniform(0.75, 1.25) * taper / 2
        d = np.abs(across - centre) / half_width
        stripe = np.exp(-d ** sharp) + 0.12 * np.exp(-(d / 3) ** 2)      # the tube, and its halo
        np.maximum(field, rng.uniform(0.75, 1.0) * stripe, out=field)
    field *= 1 + 0.12 * noise(rng, sh, sw, 3)
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    field *= rng.uniform(0.6, 0.97) * (0.2 + 0.8 * glossy_mask)
    img += field[..., None] * (1 - img)
    return count


def greyscale(img: np.ndarray, rng: np.random.Generator) -> None:
    """A black and white photo: luminance in all three channels, a little more contrast."""
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    contrast = rng.uniform(1.0, 1.3)
    grey = (grey - 0.5) * contrast + 0.5
    img[:] = grey[..., None]
