#!/usr/bin/env python3
# Checks a PNG screenshot without image libraries: prints "WIDTH HEIGHT DISTINCT_COLOURS" and, for each hex
# colour given (e.g. 22c55e), "HEX=PIXELS". Handles 8-bit RGB and RGBA, as headless Chromium writes.
#   python3 scripts/png-check.py shot.png 22c55e ec4899
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT": idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr[:4]
assert depth == 8 and ctype in (2, 6), f"unsupported PNG: depth {depth} colour type {ctype}"
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colors = {}
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        key = bytes(line[x:x + 3])
        colors[key] = colors.get(key, 0) + 1
    prev = line
print(w, h, len(colors), " ".join(f"{k}={colors.get(bytes.fromhex(k), 0)}" for k in sys.argv[2:]))
