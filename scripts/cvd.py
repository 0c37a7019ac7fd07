"""How screenshots look with a colour-vision deficiency: protanopia, deuteranopia, tritanopia.

Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color
vision deficiency", IEEE TVCG 15(6): the severity-1.0 matrices, applied to linear RGB. For each
PNG this writes ``<name>-cvd.png``: the original and its three simulations in a 2×2 grid, each
labelled, so that one can look at whether every distinction survives.

    .venv/bin/python -m scripts.cvd assets/*.png --out tests/screenshots/cvd

Colours can be simulated too (``simulate_hex``), with CIEDE2000 differences (``delta_e``) to
compare them; tests/test_accessibility.py uses both on the palette.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: Machado et al. (2009), severity 1.0, on linear RGB.
MACHADO = {
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "tritanopia": np.array(
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ]
    ),
}
KINDS = tuple(MACHADO)


def to_linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB in 0..1 to linear light."""
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def to_srgb(linear: np.ndarray) -> np.ndarray:
    """Linear light to sRGB in 0..1 (clipped to the gamut)."""
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def simulate(rgb: np.ndarray, kind: str) -> np.ndarray:
    """``rgb`` (any shape ending in 3, values 0..255) as seen with ``kind``; same shape, uint8."""
    srgb = np.asarray(rgb, dtype=float) / 255.0
    out = to_srgb(to_linear(srgb) @ MACHADO[kind].T)
    return np.round(out * 255.0).astype(np.uint8)


def hex_rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)


def simulate_hex(colour: str, kind: str) -> str:
    r, g, b = simulate(hex_rgb(colour), kind)
    return f"#{r:02x}{g:02x}{b:02x}"


# --------------------------------------------------------------------------- CIEDE2000


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB (0..255, last axis 3) to CIE L*a*b* (D65)."""
    linear = to_linear(np.asarray(rgb, dtype=float) / 255.0)
    xyz = (
        linear
        @ np.array(
            [
                [0.4124564, 0.3575761, 0.1804375],
                [0.2126729, 0.7151522, 0.0721750],
                [0.0193339, 0.1191920, 0.9503041],
            ]
        ).T
    )
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


def delta_e(a: str, b: str) -> float:
    """CIEDE2000 colour difference of two ``#rrggbb`` colours (about 2.3 is just noticeable;
    differences of 10 and more are told apart at a glance)."""
    return delta_e_lab(to_lab(hex_rgb(a)), to_lab(hex_rgb(b)))


def delta_e_lab(lab1: np.ndarray, lab2: np.ndarray) -> float:
    """CIEDE2000 (Sharma, Wu & Dalal 2005) of two L*a*b* colours."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    c_mean = (c1 + c2) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dl, dc = l2 - l1, c2p - c1p
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    d_h = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * np.cos(np.radians(h_mean - 30))
        + 0.24 * np.cos(np.radians(2 * h_mean))
        + 0.32 * np.cos(np.radians(3 * h_mean + 6))
        - 0.20 * np.cos(np.radians(4 * h_mean - 63))
    )
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = (
        -2
        * np.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
        * np.sin(np.radians(60 * np.exp(-(((h_mean - 275) / 25) ** 2))))
    )
    return float(
        np.sqrt(
            (dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (dc / s_c) * (d_h / s_h)
        )
    )


# --------------------------------------------------------------------------- images


def _font(size: int) -> ImageFont.ImageFont:
    for name in ("DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def grid(path: Path, max_width: int = 1280) -> Image.Image:
    """The image at ``path`` and its three simulations, 2×2, each labelled."""
    image = Image.open(path).convert("RGB")
    if image.width > max_width:
        image = image.resize((max_width, round(image.height * max_width / image.width)))
    pixels = np.asarray(image)
    panels = [("original", image)] + [
        (kind, Image.fromarray(simulate(pixels, kind))) for kind in KINDS
    ]
    band = 36
    w, h = image.width, image.height + band
    out = Image.new("RGB", (2 * w + 8, 2 * h + 8), "white")
    draw = ImageDraw.Draw(out)
    font = _font(24)
    for i, (label, panel) in enumerate(panels):
        x, y = (i % 2) * (w + 8), (i // 2) * (h + 8)
        draw.rectangle([x, y, x + w - 1, y + band - 1], fill="#1a1a1a")
        draw.text((x + 10, y + 5), label, fill="white", font=font)
        out.paste(panel, (x, y + band))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("images", nargs="+", type=Path, help="PNG screenshots")
    parser.add_argument("--out", type=Path, default=None, help="folder (default: beside each)")
    args = parser.parse_args(argv)
    for path in args.images:
        folder = args.out or path.parent
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{path.stem}-cvd.png"
        grid(path).save(target, optimize=True)
        print(target)


if __name__ == "__main__":
    main()
