#!/usr/bin/python3
"""Is a PNG a rendered page rather than a blank one? Standard library only (zlib).

usage: png_check.py FILE.png MIN_WIDTH MIN_HEIGHT

Decodes the image (8-bit RGB/RGBA, non-interlaced: what Chromium writes), then requires at
least 64 distinct colours and at least 5% of the pixels away from the most common (background)
colour. Prints the figures; exit 0 when rendered, 1 when blank, 2 when unreadable.
"""
import struct
import sys
import zlib
from collections import Counter


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = hdr
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path, min_w, min_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    try:
        width, height, bpp, rows = decode(path)
    except (OSError, ValueError, zlib.error, struct.error, TypeError) as e:
        print(f"png_check: {path}: {e}")
        sys.exit(2)
    colours = Counter()
    for row in rows[::4]:  # every 4th row and pixel is plenty to tell a page from a blank
        for x in range(0, width * bpp, 4 * bpp):
            colours[row[x:x + 3]] += 1
    total = sum(colours.values())
    background = colours.most_common(1)[0][1] / total
    ok = width >= min_w and height >= min_h and len(colours) >= 64 and 1 - background >= 0.05
    print(f"png_check: {path}: {width}x{height}, {len(colours)} colours, "
          f"{(1 - background) * 100:.1f}% off the background: {'rendered' if ok else 'BLANK'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
