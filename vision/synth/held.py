"""Cards held up to a webcam (``warref synth --held-up``): one card, sometimes two, in a hand
in front of a room and the person holding it, as in ../shared/realcards/handheld/.

Every other scene lies cards on a table. On real webcam frames of a card held up, the detector
boxed the face, the windows and the shirt and missed the card (models/journal/2026-12-03-held-up.md):
it had never seen a card stand before a person. The scene is still one plane seen through a
camera (the card and the room behind it), so the renderer's geometry, labels and index crops
serve unchanged; what differs is the camera (a webcam a forearm's length away, facing the card),
the backdrop (a photograph out of focus with a person painted over it), the hand holding the card
from below, and the webcam's whole look on every frame.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import clutter
from .camera import Camera, _intrinsics, _pose
from .layout import Builder, Item
from .objects import SKIN

FRAMES = ((640, 480), (1280, 720))   # a laptop's webcam
DISTANCE = (180, 450)                # mm from the lens to the card: a 63 mm card 75-250 px wide at 640
TWO_CARDS = 0.15                     # the chance that two cards are held, one slid over the other
BACK = 0.07                          # ... that a held card shows its back
HAND = 0.9                           # ... that the holding hand is in the frame
PERSON = 0.75                        # ... that the person holding the card is behind it
ROOM = 0.6                           # ... that the room shows its straight lines (windows, lights, doors)
EDGE = 0.3                           # ... that the card is anywhere in the frame, up to cut by its edge (a
                                     # third of the cards real webcam frames miss: journal 2026-12-06-detector-cpu)
BACKLIT = 0.35                       # ... that the room is lit and the card is not (``backlit``): the dark,
                                     # green-grey sixth of handheld/'s frames hold most of its missed cards
                                     # (journal 2026-12-07-backlit)
NEAR = (0.3, 0.5)                    # ... the light on what is held up, as a share of what it was (0.2-0.5
                                     # left a third of the index views darker than any real frame: journal)
FAR = (0.4, 0.85)                    # ... and on the room (its near-white parts kept as they were)
PALE_TONE = (0.62, 1.0)              # ``pale``: the wall's brightness, from a dim grey wall to a white one


def camera(rng: np.random.Generator) -> Camera:
    """A webcam facing the card from 18-45 cm, the card turned up to 30 degrees away."""
    width, height = FRAMES[rng.integers(len(FRAMES))]
    hfov = rng.uniform(55, 72)
    fx = (width / 2) / np.tan(np.radians(hfov) / 2)
    K = _intrinsics(rng, width, height, fx, 0.01)
    tilt = rng.uniform(0, 30)
    near, far = DISTANCE
    distance = 1 / rng.uniform(1 / far, 1 / near)
    R, t = _pose(rng, tilt, distance, 30, 8)
    dist = np.zeros(5)
    if rng.random() < 0.5:
        dist[0] = rng.uniform(-0.15, 0.03)
    return Camera(width, height, K, R, t, dist, tilt, distance, float(hfov))


def backdrop(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """What is behind the card, h x w RGB float32 in 0..1: a stretch of a photograph (or a plain
    wall, one time in five)."""
    _, pics = clutter.pictures()
    if rng.random() < 0.8:
        out = clutter._crop(rng, pics[rng.integers(len(pics))], h, w).astype(np.float32) / 255
    else:
        wall = rng.uniform(0.35, 0.95) * rng.uniform(0.85, 1.1, 3)
        ramp = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(0.7, 1.0), w, dtype=np.float32)
        out = np.clip(np.ones((h, w, 3), np.float32) * wall * ramp[None, :, None], 0, 1)
    return out.astype(np.float32)


def room(rng: np.random.Generator, img: np.ndarray) -> None:
    """Paint, in place, what a room behind a webcam shows in straight lines (``img``: the frame, RGB
    float): a bright window split by dark frames and sometimes slats of a blind, tube lights, and the
    edges of a door, a pillar or a shelf. A detector trained on tables alone boxes these as cards."""
    h, w = img.shape[:2]
    for _ in range(rng.integers(1, 3)):                   # windows: bright panes in dark frames
        x0, y0 = int(rng.uniform(-0.2, 0.8) * w), int(rng.uniform(-0.3, 0.4) * h)
        x1, y1 = x0 + int(rng.uniform(0.2, 0.7) * w), y0 + int(rng.uniform(0.4, 1.2) * h)
        sky = rng.uniform(0.75, 1.0) * rng.uniform(0.92, 1.05, 3)
        cv2.rectangle(img, (x0, y0), (x1, y1), tuple(float(v) for v in np.clip(sky, 0, 1)), -1)
        frame = tuple(float(v) for v in rng.uniform(0.05, 0.5) * np.ones(3) * rng.uniform(0.9, 1.1, 3))
        bar = max(2, int(w * rng.uniform(0.005, 0.03)))
        for x in np.linspace(x0, x1, rng.integers(2, 6)):                       # mullions
            cv2.rectangle(img, (int(x) - bar, y0), (int(x) + bar, y1), frame, -1)
        if rng.random() < 0.5:                                                    # a transom
            y = int(rng.uniform(y0, y1))
            cv2.rectangle(img, (x0, y - bar), (x1, y + bar), frame, -1)
        if rng.random() < 0.4:                                                    # a blind's slats
            step = max(4, int(h * rng.uniform(0.015, 0.05)))
            slat = tuple(float(v) for v in np.clip(sky * rng.uniform(0.6, 0.95), 0, 1))
            for y in range(y0, y1, step):
                cv2.line(img, (x0, y), (x1, y), slat, max(1, step // 3))
    for _ in range(rng.integers(0, 4)):                   # tube lights, seen from below at a slant
        x, y = rng.uniform(0, w), rng.uniform(0, h * 0.5)
        length, turn = rng.uniform(0.08, 0.3) * w, rng.normal(0, 0.35)
        end = (int(x + length * np.cos(turn)), int(y + length * np.sin(turn)))
        cv2.line(img, (int(x), int(y)), end, (1.0, 1.0, 0.98), max(2, int(h * rng.uniform(0.008, 0.025))), cv2.LINE_AA)
    for _ in range(rng.integers(0, 3)):                   # a door's or a pillar's edge, a shelf
        tone = tuple(float(v) for v in rng.uniform(0.1, 0.9) * rng.uniform(0.85, 1.1, 3))
        if rng.random() < 0.6:
            x, wide = int(rng.uniform(0, w)), int(w * rng.uniform(0.02, 0.2))
            cv2.rectangle(img, (x, 0), (x + wide, h), tone, -1)
        else:
            y, tall = int(rng.uniform(0, h)), int(h * rng.uniform(0.01, 0.05))
            cv2.rectangle(img, (0, y), (w, y + tall), tone, -1)


def _colour(rgb) -> tuple[float, float, float]:
    return tuple(float(v) / 255 for v in rgb)


def person(rng: np.random.Generator, img: np.ndarray) -> None:
    """Paint, in place, a person facing the camera behind the card (``img``: the frame, RGB float):
    shoulders and shirt, neck, head with hair, eyes, brows, mouth and sometimes a beard; then the
    whole frame out of focus."""
    h, w = img.shape[:2]
    skin = np.clip(np.array(SKIN[rng.integers(len(SKIN))]) + rng.normal(0, 10, 3), 0, 255)
    shade = skin * rng.uniform(0.55, 0.75)
    hair = rng.integers(10, 90, 3) if rng.random() < 0.85 else rng.integers(90, 200, 3)
    cx = w * rng.uniform(0.3, 0.7)
    head_h = h * rng.uniform(0.18, 0.35)                  # half the head's height
    head_w = head_h * rng.uniform(0.68, 0.8)
    cy = h * rng.uniform(0.2, 0.45)
    shirt = rng.integers(20, 240, 3)
    cv2.ellipse(img, (int(cx), int(cy + head_h * 3.1)), (int(head_w * rng.uniform(2.6, 3.6)), int(head_h * 2.2)),
                0, 0, 360, _colour(shirt), -1, cv2.LINE_AA)
    cv2.rectangle(img, (int(cx - head_w * 0.45), int(cy + head_h * 0.5)), (int(cx + head_w * 0.45), int(cy + head_h * 1.3)),
                  _colour(shade), -1, cv2.LINE_AA)
    cv2.ellipse(img, (int(cx), int(cy)), (int(head_w), int(head_h)), 0, 0, 360, _colour(skin), -1, cv2.LINE_AA)
    for side in (-1, 1):                                  # ears
        cv2.ellipse(img, (int(cx + side * head_w * 0.97), int(cy)), (int(head_w * 0.14), int(head_h * 0.2)),
                    0, 0, 360, _colour(skin * 0.92), -1, cv2.LINE_AA)
    if rng.random() < 0.9:                                # hair over the top of the head
        cv2.ellipse(img, (int(cx), int(cy - head_h * 0.25)), (int(head_w * 1.04), int(head_h * 0.85)),
                    0, 180, 360, _colour(hair), -1, cv2.LINE_AA)
    if rng.random() < 0.3:                                # a beard
        cv2.ellipse(img, (int(cx), int(cy + head_h * 0.35)), (int(head_w * 0.95), int(head_h * 0.65)),
                    0, 0, 180, _colour(hair), -1, cv2.LINE_AA)
    dark = _colour(np.clip(hair * 0.6, 0, 255))
    eye_y = cy - head_h * rng.uniform(0.0, 0.15)
    for side in (-1, 1):
        ex = cx + side * head_w * 0.38
        cv2.ellipse(img, (int(ex), int(eye_y)), (max(1, int(head_w * 0.14)), max(1, int(head_h * 0.05))),
                    0, 0, 360, (0.95, 0.95, 0.93), -1, cv2.LINE_AA)
        cv2.circle(img, (int(ex), int(eye_y)), max(1, int(head_h * 0.045)), (0.12, 0.1, 0.08), -1, cv2.LINE_AA)
        cv2.line(img, (int(ex - head_w * 0.18), int(eye_y - head_h * 0.16)), (int(ex + head_w * 0.18), int(eye_y - head_h * 0.18)),
                 dark, max(1, int(head_h * 0.05)), cv2.LINE_AA)
    cv2.line(img, (int(cx), int(eye_y + head_h * 0.1)), (int(cx + head_w * 0.06), int(cy + head_h * 0.35)),
             _colour(shade), max(1, int(head_h * 0.05)), cv2.LINE_AA)
    cv2.ellipse(img, (int(cx), int(cy + head_h * 0.55)), (int(head_w * 0.3), max(1, int(head_h * 0.06))),
                0, 0, 180, _colour(shade * 0.8), max(1, int(head_h * 0.04)), cv2.LINE_AA)


def defocus(rng: np.random.Generator, img: np.ndarray) -> float:
    """Blur the backdrop in place as a webcam focused on the card would; returns the blur's sigma."""
    sigma = float(rng.uniform(0.5, 4.0))
    img[:] = cv2.GaussianBlur(img, (0, 0), sigma)
    return sigma


def backlit(rng: np.random.Generator, img: np.ndarray, behind: np.ndarray) -> dict:
    """Light the frame, in place, as a webcam facing a bright office does: it exposes for the room,
    so what is held up in front of it (the cards and the hand: where ``img`` differs from ``behind``,
    the frame before they were pasted) comes out at 0.3-0.5 of its brightness (``NEAR``), the room at
    0.4-0.85 of its own (``FAR``) with its near-white parts (windows, tube lights) kept, and the whole frame
    tinted green-grey as cheap webcams render tube light. On real frames lit so, a card's paper is
    at 50-105 of 255 beside highlights at 120-190 (handheld/'s darkest frames, mean luma under 50)."""
    front = (np.abs(img - behind).max(axis=2) > 1e-4).astype(np.float32)
    front = cv2.GaussianBlur(front, (0, 0), 1.0)[..., None]              # the camera's own soft edge
    near, far = float(rng.uniform(*NEAR)), float(rng.uniform(*FAR))
    glow = np.clip((behind.min(axis=2) - 0.8) / 0.15, 0, 1)[..., None]  # near white in all channels
    img *= front * near + (1 - front) * (far + (1 - far) * glow)
    tint = np.array([rng.uniform(0.78, 0.95), 1.0, rng.uniform(0.82, 1.02)], np.float32)
    img *= tint
    return {"near": round(near, 2), "far": round(far, 2), "tint": [round(float(t), 2) for t in tint]}


def pale(rng: np.random.Generator, img: np.ndarray, cam: Camera, card: Item, sigma: float) -> dict:
    """Paint, in place, a pale wall or window pane right behind ``card`` (``img``: the frame before the
    cards are pasted, RGB float; ``sigma``: the backdrop's defocus), reaching a random 5-200% of the
    card's size past each of its sides. On handheld/'s frames a white card before a pale wall or window
    is boxed by its picture alone: its border hardly differs from the wall behind it (journal
    2026-12-07-handheld-boxes, session 15); the other backdrops rarely sit that close to the paper."""
    h, w = img.shape[:2]
    quad = cam.to_image(card.corners())
    (x0, y0), (x1, y1) = quad.min(0), quad.max(0)
    cw, ch = x1 - x0, y1 - y0
    left, right, top, bottom = rng.uniform(0.05, 2.0, 4)
    box = (int(x0 - left * cw), int(y0 - top * ch), int(x1 + right * cw), int(y1 + bottom * ch))
    tone = float(rng.uniform(*PALE_TONE))
    colour = np.clip(tone * rng.uniform(0.95, 1.03, 3), 0, 1).astype(np.float32)
    ramp = np.linspace(rng.uniform(0.92, 1.0), rng.uniform(0.92, 1.0), h, dtype=np.float32)[:, None, None]
    mask = np.zeros((h, w), np.float32)
    cv2.rectangle(mask, box[:2], box[2:], 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, sigma))[..., None]
    img[:] = img * (1 - mask) + colour * ramp * mask
    return {"tone": round(tone, 2)}


def items(rng: np.random.Generator, deck, cam: Camera, featured: list[str]) -> list[Item]:
    """The card held up (upright in the frame, give or take, sideways one time in eight; near or over
    the frame's edge now and then, ``EDGE``), a second card slid along it sometimes, and the hand
    holding them from below, its fingers over the lower part of the card."""
    b = Builder(rng, deck, featured)
    w, h = cam.width, cam.height
    card_w, card_h = b.card_size

    def table(fx: float, fy: float) -> np.ndarray:
        return cam.to_table(np.array([[fx * w, fy * h]], float))[0]

    up = table(0.5, 0.5) - table(0.5, 0.6)
    upright = float(np.arctan2(-up[0], up[1]))
    angle = upright + rng.normal(0, 0.3) + (np.pi / 2 * rng.choice([-1, 1]) if rng.random() < 0.125 else 0.0)
    pos = (table(rng.uniform(0.02, 0.98), rng.uniform(0.05, 0.95)) if rng.random() < EDGE else
           table(rng.uniform(0.25, 0.75), rng.uniform(0.25, 0.7)))

    def code() -> str | None:
        return b.battle_code()

    face_up = rng.random() >= BACK
    first = b.card(pos, angle, face_up, "held", code() if face_up else None)
    if rng.random() < TWO_CARDS:
        along = np.array([np.cos(angle), np.sin(angle)])
        face_up = rng.random() >= BACK
        b.card(pos + along * card_w * rng.uniform(0.25, 0.6), angle + rng.normal(0, 0.2), face_up, "held",
               code() if face_up else None)
    if rng.random() < HAND:
        fingers = np.array([-np.sin(first.angle), np.cos(first.angle)])     # the card's up, on the table
        tip = np.asarray(first.centre) - fingers * card_h * rng.uniform(0.05, 0.4)
        turn = rng.normal(0, 0.35)
        direction = np.array([np.cos(turn) * fingers[0] - np.sin(turn) * fingers[1],
                              np.sin(turn) * fingers[0] + np.cos(turn) * fingers[1]])
        b.arm(tip, direction)
    return b.items
