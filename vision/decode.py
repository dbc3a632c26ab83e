"""An image file's bytes as a picture (BGR): whatever OpenCV reads (JPEG, PNG, WebP, BMP, TIFF,
AVIF, ...) and HEIC/HEIF, the format iPhones save photos in, which OpenCV does not read
(pillow-heif decodes it; its opener is registered with Pillow, so Pillow reads HEIC headers too).
EXIF orientation is applied either way."""
from __future__ import annotations

import io

import cv2
import numpy as np
import pillow_heif
from PIL import Image, ImageOps

pillow_heif.register_heif_opener()

SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".avif", ".heic", ".heif")
HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")


def is_heif(head: bytes) -> bool:
    """Whether a file starting with ``head`` (12 bytes or more) is HEIC/HEIF (an ISO box 'ftyp'
    with a HEIF brand)."""
    return head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS


def decode(data: bytes | np.ndarray, flags: int = cv2.IMREAD_COLOR) -> np.ndarray | None:
    """The picture in ``data`` (a whole image file), BGR; None if it is empty or not a picture.
    ``flags``: OpenCV's (a HEIF photo is always decoded whole, in colour)."""
    raw = data if isinstance(data, np.ndarray) else np.frombuffer(data, np.uint8)
    if not raw.size:
        return None
    image = cv2.imdecode(raw, flags)
    if image is None and is_heif(raw[:12].tobytes()):
        try:
            with Image.open(io.BytesIO(raw.tobytes())) as im:
                rgb = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
        except Exception:  # noqa: BLE001  (a corrupt HEIF file: not a picture, as OpenCV says of others)
            return None
        image = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    return image
