"""Render one synthetic table scene and its labels.

Items are warped from their sprites straight into the frame through the camera's homography,
bottom to top, each over its own soft shadow. An instance mask is drawn alongside (each card's id
where it is the top layer, 0 elsewhere), goes through the same lens distortion, and is where the
labels come from: a card's box is the oriented box of its visible pixels, so every box encloses
the card's visible area by construction.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from . import effects
from .camera import Camera, random_camera
from .layout import Deck, Item, build
from . import clutter as clutter_
from . import held
from .textures import KINDS, close_up_table, table_texture

MIN_VISIBLE_PX = 60          # fewer visible pixels than this: fully occluded, not labelled
MIN_VISIBLE_FRACTION = 0.05  # ... or less than this share (the edges peeking out of a squared pile)
OCCLUDED_BELOW = 0.5         # less than half of the card visible: marked "occluded"
CROP_SIZE = (200, 280)       # rectified crops of face-up cards (width, height: 5:7)


@dataclass
class Scene:
    image: np.ndarray                       # BGR uint8, before JPEG
    jpeg: bytes
    labels: list[dict[str, Any]]
    info: dict[str, Any]
    mask: np.ndarray | None = None          # instance ids after distortion (kept for tests)
    crops: list[tuple[str, np.ndarray]] = field(default_factory=list)
    index_crops: list[tuple[int, int, str, np.ndarray]] = field(default_factory=list)  # label, corner, code


_PYRAMIDS: dict[int, tuple[np.ndarray, list[np.ndarray]]] = {}


def _level(sprite: np.ndarray, target_px: float, keep: bool) -> np.ndarray:
    """A copy of the sprite about 1.5x the size it will have on screen (anti-aliasing). Pyramids
    of card art (``keep``: the same arrays all run long) are cached; the entry holds the sprite
    itself, so its id can't be reused by another array while cached."""
    entry = _PYRAMIDS.get(id(sprite))
    if entry is not None and entry[0] is sprite:
        levels = entry[1]
    else:
        levels = [sprite]
        while levels[-1].shape[1] > 40:
            levels.append(cv2.resize(levels[-1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
        if keep:
            _PYRAMIDS[id(sprite)] = (sprite, levels)
    for lvl in reversed(levels):
        if lvl.shape[1] >= 1.5 * target_px:
            return lvl
    return levels[0]


def _paste(img, mask, glossy, item: Item, H: np.ndarray, item_id: int, shadow_px: np.ndarray) -> None:
    """Draw one item over its shadow; ``shadow_px`` is the shadow's offset per mm of lift."""
    w, h = img.shape[1], img.shape[0]
    quad = cv2.perspectiveTransform(item.corners().reshape(-1, 1, 2), H).reshape(-1, 2)
    shift = np.clip(shadow_px * item.lift, -60, 60)
    x0, y0 = np.floor(quad.min(0) - np.abs(shift) - 12).astype(int)
    x1, y1 = np.ceil(quad.max(0) + np.abs(shift) + 12).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    side = float(np.linalg.norm(quad[1] - quad[0]))
    src = _level(item.sprite, side, keep=item.card is not None)
    scale = np.diag([item.sprite.shape[1] / src.shape[1], item.sprite.shape[0] / src.shape[0], 1.0])
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    M = T @ H @ item.sprite_to_table() @ scale
    warped = cv2.warpPerspective(src, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    alpha = warped[..., 3].astype(np.float32) / 255
    region = img[y0:y1, x0:x1]
    # shadow first: the item's silhouette, shifted away from the light and blurred
    sigma = 1.0 + item.lift * 0.25
    S = np.array([[1, 0, shift[0]], [0, 1, shift[1]]], np.float32)
    shadow = cv2.warpAffine(alpha, S, (x1 - x0, y1 - y0))
    shadow = effects.soft(shadow, sigma)
    darkness = 0.28 if item.card else 0.4
    region *= (1 - darkness * shadow)[..., None]
    rgb = warped[..., :3].astype(np.float32) / 255
    region[:] = region * (1 - alpha[..., None]) + rgb * alpha[..., None]
    top = alpha > 0.5
    mask[y0:y1, x0:x1][top] = item_id
    glossy[y0:y1, x0:x1][top] = 1.0 if item.glossy else 0.0


def _visible_box(ys: np.ndarray, xs: np.ndarray) -> tuple[list[list[float]], list[int]]:
    """The oriented box of a card's visible pixels (from their outline: the same hull, far fewer
    points), and their axis-aligned box."""
    x0, y0 = int(xs.min()), int(ys.min())
    region = np.zeros((int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1), np.uint8)
    region[ys - y0, xs - x0] = 1
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pts = (np.concatenate(contours).reshape(-1, 2) + (x0, y0)).astype(np.float32)
    rect = cv2.minAreaRect(pts)
    obb = cv2.boxPoints(rect)
    return ([[round(float(x), 2), round(float(y), 2)] for x, y in obb],
            [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1])


# Where each deck prints its corner index (rank and suit, or number), as fractions of the card
# (x0, y0, x1, y1) in the top-left corner; the bottom-right index is the same turned round.
INDEX_REGION = {"standard": (0.01, 0.01, 0.19, 0.27), "woolly": (0.01, 0.01, 0.24, 0.24),
                "namikopy": (0.01, 0.01, 0.24, 0.24)}
INDEX_SHOWS = 0.9            # an index counts as readable when this share of it is unobstructed


def _index_boxes(item: Item, camera: Camera, mask: np.ndarray, item_id: int,
                 region: tuple[float, float, float, float]) -> list[list[int]]:
    """Pixel boxes (x0, y0, x1, y1) of the card's corner indices that show and lie in the frame."""
    sprite_h, sprite_w = item.sprite.shape[:2]
    A = item.sprite_to_table()
    x0, y0, x1, y1 = region
    boxes = []
    for rx0, ry0, rx1, ry1 in ((x0, y0, x1, y1), (1 - x1, 1 - y1, 1 - x0, 1 - y0)):
        gx, gy = np.meshgrid(np.linspace(rx0, rx1, 5), np.linspace(ry0, ry1, 5))
        pts = np.stack([gx.ravel() * sprite_w, gy.ravel() * sprite_h, np.ones(gx.size)])
        table = (A @ pts)[:2] / (A @ pts)[2]
        px = camera.project(table.T)
        ipx = np.round(px).astype(int)
        inside = (ipx[:, 0] >= 0) & (ipx[:, 0] < mask.shape[1]) & (ipx[:, 1] >= 0) & (ipx[:, 1] < mask.shape[0])
        if not inside.all():
            continue
        if (mask[ipx[:, 1], ipx[:, 0]] == item_id).mean() >= INDEX_SHOWS:
            lo, hi = np.floor(px.min(0)).astype(int), np.ceil(px.max(0)).astype(int)
            boxes.append([int(lo[0]), int(lo[1]), int(hi[0]), int(hi[1])])
    return boxes


INDEX_MARGIN = 0.15


def index_crop(image: np.ndarray, box, margin: float = INDEX_MARGIN) -> np.ndarray | None:
    """The pixels of a corner-index box with a margin around it, or None if it is tiny."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if min(w, h) < 8:
        return None
    mx, my = int(round(w * margin)), int(round(h * margin))
    H, W = image.shape[:2]
    return image[max(0, y0 - my):min(H, y1 + my), max(0, x0 - mx):min(W, x1 + mx)].copy()


def _crop(image: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    h, w = image.shape[:2]
    if corners.min() < 0 or corners[:, 0].max() >= w or corners[:, 1].max() >= h:
        return None
    cw, ch = CROP_SIZE
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    M = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(image, M, (cw, ch), flags=cv2.INTER_LINEAR)


def render(rng: np.random.Generator, deck_id: str, deck: Deck, featured: list[str],
           keep_mask: bool = False, rows: bool = False, close_ups: bool = False, clutter: bool = False,
           held_up: bool = False, backlit: float | None = None, pale: float = 0.0) -> Scene:
    """One scene. ``close_ups``: a phone photo of a few cards from 11-33 cm (``camera.close_camera``,
    ``layout.close_up``), mostly on pale tables, half of them with tube lights mirrored in the table
    (``effects.tube_glare``), a quarter black and white; off, a seed gives the scenes it gave before.
    ``clutter``: half the tables a photographed surface, and things cut from photographs under and
    over the cards (``clutter``); off, the same. ``held_up``: a card held up to a webcam in front of
    a room and a person (``held``), every frame with the webcam's look; ``backlit`` of them lit from
    behind (``held.backlit``; default ``held.BACKLIT``), ``pale`` of them before a pale wall
    (``held.pale``; 0, the default, draws nothing, so a seed gives the scenes it gave before)."""
    camera = held.camera(rng) if held_up else random_camera(rng, close_ups=close_ups)
    W, Hh = camera.width, camera.height
    H = camera.homography

    # the table: a texture over the visible footprint, seen through the camera
    corners = np.array([[0, 0], [W, 0], [W, Hh], [0, Hh]], float)
    footprint = camera.to_table(corners)
    margin = 20 if close_ups else 80
    fx0, fy0 = footprint.min(0) - margin
    fx1, fy1 = footprint.max(0) + margin
    if close_ups:      # sharp up close: about a texture pixel per frame pixel where the table is nearest
        scale = min(camera.K[0, 0] / camera.distance * 1.1, 2000 / max(fx1 - fx0, fy1 - fy0))
    else:
        scale = min(1.2, 1000 / max(fx1 - fx0, fy1 - fy0))
    tw, th = int((fx1 - fx0) * scale), int((fy1 - fy0) * scale)
    if close_ups:
        kind, texture, table_gloss = close_up_table(rng, th, tw, scale)
    else:
        kind = KINDS[rng.integers(len(KINDS))]
        texture = table_texture(rng, kind, th, tw, scale)
    if clutter and rng.random() < clutter_.TABLE:
        kind, texture = "photographed", clutter_.table(rng, th, tw, scale)
    if held_up:
        kind, texture = "room", held.backdrop(rng, th, tw)
    to_table = np.array([[1 / scale, 0, fx0], [0, -1 / scale, fy1], [0, 0, 1]])
    img = cv2.warpPerspective(texture, H @ to_table, (W, Hh), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    held_info: dict[str, Any] = {}
    if held_up:
        if rng.random() < held.ROOM:
            held.room(rng, img)
            held_info["room"] = True
        if rng.random() < held.PERSON:
            held.person(rng, img)
            held_info["person"] = True
        held_info["defocus"] = defocus = round(held.defocus(rng, img), 2)

    items = (held.items(rng, deck, camera, featured) if held_up
             else build(rng, deck_id, deck, camera, featured, rows, close_ups))
    if clutter:
        under, over = clutter_.things(rng, footprint, [it for it in items if it.card])
        items = under + items + over
    mask = np.zeros((Hh, W), np.int16)
    glossy = np.full((Hh, W), table_gloss, np.float32) if close_ups else np.zeros((Hh, W), np.float32)
    light = rng.normal(0, 1, 2)    # direction and slant of the lamp: shadow offset per mm of lift
    shadow_px = light / np.linalg.norm(light) * rng.uniform(0.3, 1.2) * camera.K[0, 0] / camera.distance
    if held_up and pale and rng.random() < pale:
        held_info["pale"] = held.pale(rng, img, camera, next(it for it in items if it.card), defocus)
    behind = img.copy() if held_up else None
    ids: dict[int, Item] = {}
    for item in items:
        item_id = len(ids) + 1 if item.card else 0
        if item.card:
            ids[item_id] = item
        _paste(img, mask, glossy, item, H, item_id, shadow_px)
    if held_up and rng.random() < (held.BACKLIT if backlit is None else backlit):
        held_info["backlit"] = held.backlit(rng, img, behind)

    info: dict[str, Any] = {"table": kind, "camera": {"tilt": round(camera.tilt, 1),
                            "distance_mm": round(camera.distance), "hfov": round(camera.hfov, 1),
                            "k1": round(float(camera.dist[0]), 3)}}
    info.update(effects.lighting(img, rng))
    if held_up:
        info["held_up"] = held_info
    else:
        info["head_shadows"] = effects.head_shadows(img, rng)
        info["glare"] = effects.glare(img, rng, glossy)
    if close_ups:
        info["close_up"] = True
        info.update(effects.phone_auto(img, rng))
        info["tubes"] = effects.tube_glare(img, rng, glossy) if rng.random() < 0.5 else 0
    maps = camera.distortion_maps()
    if maps is not None:
        img = cv2.remap(img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        mask = cv2.remap(mask, maps[0], maps[1], cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=0)
    info.update(effects.blur(img, rng))
    info.update(effects.sensor(img, rng, webcam_share=1.0 if held_up else None, exposed="backlit" in held_info))
    if close_ups:
        info["mono"] = bool(rng.random() < 0.25)
        if info["mono"]:
            effects.greyscale(img, rng)
    bgr = cv2.cvtColor(np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    quality = int(rng.integers(35, 96))
    info["jpeg_quality"] = quality
    jpeg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)

    labels, crops, index_crops = [], [], []
    counts = np.bincount(mask.ravel().clip(0), minlength=len(ids) + 1)
    for item_id, item in ids.items():
        visible = int(counts[item_id])
        projected = camera.project(item.corners())
        area = float(cv2.contourArea(projected.astype(np.float32)))
        fraction = visible / max(area, 1.0)
        if visible < MIN_VISIBLE_PX or fraction < MIN_VISIBLE_FRACTION:
            continue
        bx0, by0 = np.clip(np.floor(projected.min(0)).astype(int) - 2, 0, None)
        bx1, by1 = np.ceil(projected.max(0)).astype(int) + 3
        ys, xs = np.nonzero(mask[by0:by1, bx0:bx1] == item_id)
        if len(xs) != visible:     # (distortion moved pixels past the quad: scan everything)
            ys, xs = np.nonzero(mask == item_id)
        else:
            ys, xs = ys + by0, xs + bx0
        obb, box = _visible_box(ys, xs)
        face_up = item.card != "BACK"
        label = {"instance": item_id, "card": item.card, "face_up": face_up, "artwork": item.artwork, "role": item.role,
                 "obb": obb, "box": box, "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in projected],
                 "visible": round(min(fraction, 1.0), 3), "occluded": fraction < OCCLUDED_BELOW}
        if face_up:
            label["index_boxes"] = _index_boxes(item, camera, mask, item_id, INDEX_REGION[deck_id])
            label["index_visible"] = bool(label["index_boxes"])
            for c, index_box in enumerate(label["index_boxes"]):
                crop = index_crop(decoded, index_box)
                if crop is not None:
                    index_crops.append((len(labels), c, item.card, crop))
            if not label["occluded"] and label["index_visible"]:
                crop = _crop(decoded, projected)
                if crop is not None:
                    label["crop"] = len(crops)
                    crops.append((item.card, crop))
        labels.append(label)
    return Scene(bgr, jpeg, labels, info, mask if keep_mask else None, crops, index_crops)
