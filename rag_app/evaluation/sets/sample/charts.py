"""The sample report's three figures as small PNG charts, drawn with Pillow."""

from __future__ import annotations

from pathlib import Path

from rag_app.evaluation.sets.sample.figures import (
    CAP_Q,
    Q_GM,
    Q_REV,
    Q_UTIL,
    annual_revenue,
    q_yoy,
)


def draw_charts(paths: dict[str, Path]) -> None:
    """Three small charts (ASCII labels: no CJK font is assumed on the build machine)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover - fallback without Pillow
        for p in paths.values():
            _write_plain_png(p)
        return

    def font(size):
        for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
            try:
                return ImageFont.truetype(name, size)
            except OSError:
                pass
        return ImageFont.load_default()

    W, H = 640, 360
    L, R, T, B = 60, 580, 50, 300
    f_title, f_small = font(15), font(11)

    def frame(title):
        im = Image.new("RGB", (W, H), "white")
        dr = ImageDraw.Draw(im)
        dr.text((L, 15), title, fill=(30, 30, 30), font=f_title)
        dr.line([(L, B), (R, B)], fill=(90, 90, 90))
        dr.line([(L, T), (L, B)], fill=(90, 90, 90))
        dr.line([(R, T), (R, B)], fill=(90, 90, 90))
        return im, dr

    def y_of(v, lo, hi):
        return B - (v - lo) / (hi - lo) * (B - T)

    def axis(dr, lo, hi, step, side, fmt="{:.0f}"):
        v = lo
        while v <= hi + 1e-9:
            y = y_of(v, lo, hi)
            if side == "left":
                dr.line([(L - 4, y), (L, y)], fill=(90, 90, 90))
                dr.line([(L + 1, y), (R - 1, y)], fill=(232, 232, 232))
                dr.text((L - 8, y), fmt.format(v), fill=(60, 60, 60), font=f_small, anchor="rm")
            else:
                dr.line([(R, y), (R + 4, y)], fill=(90, 90, 90))
                dr.text((R + 8, y), fmt.format(v), fill=(60, 60, 60), font=f_small, anchor="lm")
            v += step

    def bars_and_line(path, title, labels, bars, line, blo, bhi, bstep, llo, lhi, lstep, legend):
        im, dr = frame(title)
        axis(dr, blo, bhi, bstep, "left")
        axis(dr, llo, lhi, lstep, "right")
        n = len(labels)
        slot = (R - L) / n
        pts = []
        for i, (lab, b, ln) in enumerate(zip(labels, bars, line, strict=True)):
            cx = L + slot * (i + 0.5)
            dr.rectangle(
                [cx - slot * 0.3, y_of(b, blo, bhi), cx + slot * 0.3, B - 1], fill=(46, 94, 170)
            )
            dr.text(
                (cx, y_of(b, blo, bhi) - 3),
                f"{b:.1f}",
                fill=(46, 94, 170),
                font=f_small,
                anchor="mb",
            )
            dr.text((cx, B + 8), lab, fill=(60, 60, 60), font=f_small, anchor="mt")
            pts.append((cx, y_of(ln, llo, lhi)))
        if llo < 0 < lhi:
            dr.line([(L, y_of(0, llo, lhi)), (R, y_of(0, llo, lhi))], fill=(200, 120, 60), width=1)
        dr.line(pts, fill=(214, 96, 33), width=3)
        for x, y in pts:
            dr.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(214, 96, 33))
        _legend(dr, legend)
        _save(im, path)

    def _legend(dr, entries):
        x = L
        for text, color, kind in entries:
            if kind == "bar":
                dr.rectangle([x, 328, x + 14, 338], fill=color)
            else:
                dr.line([(x, 333), (x + 14, 333)], fill=color, width=3)
            dr.text((x + 20, 333), text, fill=(40, 40, 40), font=f_small, anchor="lm")
            x += 40 + dr.textlength(text, font=f_small)

    def _save(im, path):
        im = im.convert("P", palette=Image.Palette.ADAPTIVE, colors=32)
        im.save(path, optimize=True)

    annual, annual_g = annual_revenue()
    bars_and_line(
        paths["fig1"],
        "SMIC annual revenue (RMB 100m) and YoY growth (%)",
        [str(y) for y in range(2019, 2025)],
        annual,
        annual_g,
        0,
        900,
        100,
        -40,
        50,
        10,
        [
            ("Revenue (RMB 100m, left)", (46, 94, 170), "bar"),
            ("YoY % (right)", (214, 96, 33), "line"),
        ],
    )
    yoy = q_yoy()
    labels = [q[2:] for q in CAP_Q]  # 23Q1 ...
    bars_and_line(
        paths["fig3"],
        "SMIC quarterly revenue (RMB 100m) and YoY growth (%)",
        labels,
        Q_REV[16:],
        yoy[16:],
        0,
        250,
        25,
        -40,
        40,
        10,
        [
            ("Revenue (RMB 100m, left)", (46, 94, 170), "bar"),
            ("YoY % (right)", (214, 96, 33), "line"),
        ],
    )

    # figure 2: two lines, gross margin (left) and utilisation (right)
    im, dr = frame("SMIC quarterly gross margin (%) and utilisation rate (%)")
    axis(dr, 0, 40, 5, "left")
    axis(dr, 50, 100, 5, "right")
    n = len(CAP_Q)
    slot = (R - L) / n
    gm = Q_GM[16:]
    ut = Q_UTIL[16:]
    p_gm = [(L + slot * (i + 0.5), y_of(v, 0, 40)) for i, v in enumerate(gm)]
    p_ut = [(L + slot * (i + 0.5), y_of(v, 50, 100)) for i, v in enumerate(ut)]
    dr.line(p_gm, fill=(46, 94, 170), width=3)
    dr.line(p_ut, fill=(214, 96, 33), width=3)
    for (x, y), v in zip(p_gm, gm, strict=True):
        dr.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(46, 94, 170))
        dr.text((x, y + 8), f"{v:.1f}", fill=(46, 94, 170), font=f_small, anchor="mt")
    for (x, y), v in zip(p_ut, ut, strict=True):
        dr.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(214, 96, 33))
        dr.text((x, y - 8), f"{v:.1f}", fill=(214, 96, 33), font=f_small, anchor="mb")
    for i, lab in enumerate(labels):
        dr.text((L + slot * (i + 0.5), B + 8), lab, fill=(60, 60, 60), font=f_small, anchor="mt")
    _legend(
        dr,
        [
            ("Gross margin % (left)", (46, 94, 170), "line"),
            ("Utilisation % (right)", (214, 96, 33), "line"),
        ],
    )
    _save(im, paths["fig2"])


def _write_plain_png(path: Path) -> None:
    """Pure-python fallback: a blank light-grey PNG (used only when Pillow is missing)."""
    import struct
    import zlib

    w, h = 320, 180
    raw = b"".join(b"\x00" + b"\xee\xee\xee" * w for _ in range(h))

    def chunk(tag, data):
        return (
            struct.pack(">I", len(data))
            + tag
            + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        )

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
    path.write_bytes(png)
