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


def motion_kernel(length: int, angle: float) -> np.ndarray:
    """A straight motion-blur kernel ``length`` pixels long at ``angle`` degrees, summing to 1."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    kernel /= max(kernel.sum(), 1e-6)
    return kernel


def blur(img: np.ndarray, rng: np.random.Generator) -> dict:
    out = {}
    if rng.random() < 0.45:
        sigma = float(rng.uniform(0.4, 2.2))
        img[:] = cv2.GaussianBlur(img, (0, 0), sigma)
        out["defocus"] = round(sigma, 2)
    if rng.random() < 0.2:
        length = int(rng.integers(3, 14))
        img[:] = cv2.filter2D(img, -1, motion_kernel(length, rng.uniform(0, 180)))
        out["motion"] = length
    return out


def sensor(img: np.ndarray, rng: np.random.Generator, webcam_share: float | None = None,
           exposed: bool = False) -> dict:
    """Auto white balance errors and sensor noise (more of it in the dark); or, for a share
    ``webcam_share`` of pictures (default ``WEBCAM_SHARE``), a cheap webcam's whole look instead
    (``webcam``: its optics, exposure, colour cast, noise, low resolution and JPEG), reported as
    ``{"webcam": {...}}``. Whether a picture gets the look, and the look itself, are drawn from a
    child of ``rng`` (``Generator.spawn``), and the plain draws are made either way, so ``rng``'s
    stream, and with it every other picture, is what it was before the look existed. ``exposed``: see
    ``webcam``."""
    look = _child(rng)
    gains = rng.uniform(0.88, 1.12, 3).astype(np.float32)
    sigma = float(rng.uniform(0.003, 0.04))
    seed = int(rng.integers(2**31))
    if look.random() < (WEBCAM_SHARE if webcam_share is None else webcam_share):
        info: dict = {}
        img[:] = webcam(img, look, info=info, exposed=exposed)
        return {"webcam": info}
    img *= gains
    grain = np.empty(img.shape, np.float32)
    cv2.setRNGSeed(seed)                          # cv2's generator, seeded from the scene's
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


# --- a cheap webcam's look (issue 39) ---------------------------------------------------------
# Real webcam frames of a card held up to a laptop (realcards/handheld/) are blurred (focus, a
# moving hand), badly exposed, tinted, noisy (with single-pixel dots), soft from a small sensor
# blown up, and JPEG-blocky. ``webcam`` draws each of these with its own probability and amount.
WEBCAM_SHARE = 0.35            # share of synthetic scenes (``sensor``) that get the webcam look
WEBCAM_DEFOCUS = 0.5           # probability of each stage, then the range its amount is drawn from
WEBCAM_DEFOCUS_SIGMA = (0.6, 2.0)
WEBCAM_MOTION = 0.35
WEBCAM_MOTION_PX = (3, 15)     # motion-blur kernel length, any direction
WEBCAM_EXPOSURE = 0.75         # of which under-exposed 60%, over-exposed 40%
WEBCAM_UNDER = (0.35, 0.8)     # gain
WEBCAM_OVER = (1.2, 1.8)
WEBCAM_GAMMA = (0.75, 1.35)
WEBCAM_CRUSH = (0.0, 0.12)     # black level cut off (crushed blacks), half the time
WEBCAM_CAST = 0.7
WEBCAM_CAST_SD = 0.08          # log-gain per channel, luma kept
WEBCAM_NOISE = 0.9
WEBCAM_NOISE_SIGMA = (0.008, 0.035)   # luma noise at mid grey, up to 3x in a dark picture
WEBCAM_DOTS = 0.5
WEBCAM_DOTS_DENSITY = (0.0005, 0.004)  # salt, pepper and hot pixels, share of all pixels
WEBCAM_LOW_RES = 0.5
WEBCAM_LOW_RES_SCALE = (0.25, 0.6)     # downscaled by this, then blown up back
WEBCAM_JPEG = 0.85
WEBCAM_JPEG_QUALITY = (30, 80)
LUMA_RGB = np.array([0.299, 0.587, 0.114], np.float32)


def _child(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator from ``rng`` that leaves ``rng``'s own stream as it was (a spawned
    child: deterministic for a seeded ``rng``); one drawn from it where it cannot spawn."""
    try:
        return rng.spawn(1)[0]
    except (TypeError, ValueError, AttributeError):
        return np.random.default_rng(int(rng.integers(2**63)))


def _randn(shape, seed: int) -> np.ndarray:
    """Standard normal float32 noise from cv2's generator (far quicker than numpy's), seeded."""
    out = np.empty(shape, np.float32)
    cv2.setRNGSeed(seed)
    cv2.randn(out, 0.0, 1.0)
    return out


def webcam(image: np.ndarray, rng: np.random.Generator, strength: float = 1.0, bgr: bool = False,
           info: dict | None = None, exposed: bool = False) -> np.ndarray:
    """``image`` as a cheap webcam would give it: a copy of the same shape and dtype (float32 RGB
    in [0, 1], effects' way, or uint8), deterministic for a seeded ``rng``. ``bgr``: the channels are
    in OpenCV's order (for the luma weights and the JPEG's colour conversion). ``strength`` scales
    every amount (0: only the JPEG's rounding). Stages, in the order light goes through them, each
    with its own probability (``WEBCAM_*``) and a random amount:

    1. optics: defocus (Gaussian) and motion blur (a 3-15 px stroke in any direction);
    2. auto exposure: under or over exposed (clipped), a gamma, crushed blacks;
    3. a white-balance cast;
    4. sensor noise: luma and coarser per-channel (chroma) noise, stronger the darker the picture;
    5. low resolution: downscaled to 0.25-0.6 and blown up back;
    6. salt-and-pepper dots and hot pixels (single sharp pixels at the final size, as in real
       frames, so after the rescale);
    7. JPEG, quality 30-80.

    ``info``: filled with what was applied. ``exposed``: the frame is already as the camera's auto
    exposure left it (a card held up before a bright room, ``held.backlit``), so stage 2 is drawn but
    not applied: exposing it again left a third of those cards' indices darker than any real frame's.
    """
    info = {} if info is None else info
    uint8 = image.dtype == np.uint8
    img = image.astype(np.float32) * (1 / 255 if uint8 else 1)
    np.clip(img, 0, 1, out=img)
    h, w = img.shape[:2]
    colour = img.ndim == 3 and img.shape[2] == 3
    luma_w = LUMA_RGB[::-1] if bgr else LUMA_RGB
    s = float(strength)

    if rng.random() < WEBCAM_DEFOCUS and s > 0:
        sigma = float(rng.uniform(*WEBCAM_DEFOCUS_SIGMA)) * s
        img = cv2.GaussianBlur(img, (0, 0), sigma)
        info["defocus"] = round(sigma, 2)
    if rng.random() < WEBCAM_MOTION and s > 0:
        length = round(int(rng.integers(WEBCAM_MOTION_PX[0], WEBCAM_MOTION_PX[1] + 1)) * s)
        angle = float(rng.uniform(0, 180))
        if length >= 2:
            img = cv2.filter2D(img, -1, motion_kernel(length, angle), borderType=cv2.BORDER_REFLECT)
            info["motion"] = length

    level = float(img.mean())                   # how dark the scene is, before the camera's gain
    if rng.random() < WEBCAM_EXPOSURE:
        under = rng.random() < 0.6
        gain = float(rng.uniform(*(WEBCAM_UNDER if under else WEBCAM_OVER))) ** s
        gamma = float(rng.uniform(*WEBCAM_GAMMA)) ** s
        black = float(rng.uniform(*WEBCAM_CRUSH)) * s if rng.random() < 0.5 else 0.0
        if exposed:
            gain, gamma, black = 1.0, 1.0, 0.0
        img *= gain
        np.clip(img, 0, 1, out=img)
        if black:
            img -= black
            img *= 1 / (1 - black)
            np.clip(img, 0, 1, out=img)
        cv2.pow(img, gamma, dst=img)
        info.update(exposure=round(gain, 3), gamma=round(gamma, 3), black=round(black, 3))
    if colour and rng.random() < WEBCAM_CAST:
        gains = np.exp(rng.normal(0, WEBCAM_CAST_SD * s, 3)).astype(np.float32)
        gains /= float(gains @ luma_w)
        img *= gains
        info["cast"] = [round(float(g), 3) for g in gains]

    if rng.random() < WEBCAM_NOISE and s > 0:
        after = float(img.mean())
        dark = float(np.clip(0.5 / max(min(level, after), 0.05), 1.0, 3.0))
        sigma = float(rng.uniform(*WEBCAM_NOISE_SIGMA)) * s * dark
        chroma = float(rng.uniform(0.3, 0.8))
        luma = _randn((h, w), int(rng.integers(2**31)))
        if colour:
            noise = np.repeat(luma[..., None], 3, axis=2)
            ch, cw = max(1, h // 2), max(1, w // 2)        # colour noise is blotchier (demosaicing)
            blotches = cv2.resize(_randn((ch, cw, 3), int(rng.integers(2**31))), (w, h),
                                  interpolation=cv2.INTER_LINEAR)
            noise += chroma * blotches
        else:
            noise = luma.reshape(img.shape)
        img += noise * sigma
        info["noise"] = round(sigma, 4)
    np.clip(img, 0, 1, out=img)

    if rng.random() < WEBCAM_LOW_RES and s > 0:
        scale = 1 - (1 - float(rng.uniform(*WEBCAM_LOW_RES_SCALE))) * s
        small = cv2.resize(img, (max(8, round(w * scale)), max(8, round(h * scale))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR).reshape(img.shape)
        info["low_res"] = round(scale, 3)

    if rng.random() < WEBCAM_DOTS and s > 0:
        density = float(rng.uniform(*WEBCAM_DOTS_DENSITY)) * s
        n = round(density * h * w)
        ys, xs = rng.integers(0, h, n), rng.integers(0, w, n)
        kind = rng.random(n)
        img[ys, xs] = np.where(kind < 0.5, 1.0, 0.0).astype(np.float32).reshape(-1, *([1] if img.ndim == 3 else []))
        if colour:                               # hot pixels: one channel stuck bright
            hot = kind > 0.85
            img[ys[hot], xs[hot], rng.integers(0, 3, int(hot.sum()))] = 1.0
        info["dots"] = n

    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < WEBCAM_JPEG:
        quality = int(rng.integers(WEBCAM_JPEG_QUALITY[0], WEBCAM_JPEG_QUALITY[1] + 1))
        flip = colour and not bgr
        enc = out[..., ::-1] if flip else out
        _, jpg = cv2.imencode(".jpg", np.ascontiguousarray(enc), [cv2.IMWRITE_JPEG_QUALITY, quality])
        dec = cv2.imdecode(jpg, cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE)
        out = (dec[..., ::-1] if flip else dec).reshape(out.shape)
        info["jpeg"] = quality
    if uint8:
        return np.ascontiguousarray(out)
    return out.astype(image.dtype) * np.asarray(1 / 255, image.dtype)
