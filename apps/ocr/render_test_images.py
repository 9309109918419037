#!/usr/bin/python3
"""Renders the OCR app's synthetic test images: printed English text lines, dark on light.

Usage: render_test_images.py OUT_DIR

Writes a few PNGs into OUT_DIR and OUT_DIR/expected.txt, which lists each image's lines top to
bottom as "<image file>\\t<line text>". The output is deterministic: the texts, fonts, sizes and
angles are fixed below, and the noise and textures come from seeded random generators.
Needs Debian's python3-pil, fonts-dejavu-core and fonts-liberation2 (scripts/setup.sh).
"""
import os
import random
import re
import sys

try:
    from PIL import Image, ImageChops, ImageDraw, ImageFont, ImageOps
except ImportError:
    sys.exit("render_test_images: PIL is missing; install the Debian package python3-pil")

DEJAVU = "/usr/share/fonts/truetype/dejavu"
LIBERATION = "/usr/share/fonts/truetype/liberation2"
FONTS = {
    "DejaVuSans": (DEJAVU + "/DejaVuSans.ttf", "fonts-dejavu-core"),
    "DejaVuSerif": (DEJAVU + "/DejaVuSerif.ttf", "fonts-dejavu-core"),
    "DejaVuSansMono": (DEJAVU + "/DejaVuSansMono.ttf", "fonts-dejavu-core"),
    "LiberationSans": (LIBERATION + "/LiberationSans-Regular.ttf", "fonts-liberation2"),
    "LiberationSerif": (LIBERATION + "/LiberationSerif-Regular.ttf", "fonts-liberation2"),
}
MARGIN = 40  # pixels of background around the text block, on every side
SPACING = 2.0  # baseline-to-baseline distance, in units of the larger font size of two lines
SEED = 20240611

# Each line is (text, font, size in px, angle in degrees); `angle` turns the whole text block.
IMAGES = [
    # Baseline: one sans font, medium size, plain white, straight, no noise.
    dict(name="clean_sans.png", width=800, background="plain", noise=0, angle=0, lines=[
        ("Welcome to the morning market", "DejaVuSans", 32, 0),
        ("Fresh bread and apples, 3 for 5", "DejaVuSans", 32, 0),
        ("Open daily from 8:30 to 5:45.", "DejaVuSans", 32, 0),
    ]),
    # Small serif text, five lines, on a paper-like texture with mild noise.
    dict(name="paper_serif.png", width=700, background="paper", noise=10, angle=0, lines=[
        ("Chapter Seven: The Long Journey", "LiberationSerif", 22, 0),
        ("They walked along the quiet road", "LiberationSerif", 22, 0),
        ("until the sun went down behind", "LiberationSerif", 22, 0),
        ("the hills, and then they rested", "LiberationSerif", 22, 0),
        ("near a small farm (about 25 miles).", "LiberationSerif", 22, 0),
    ]),
    # Monospaced text with digits and colons, turned 2.5 degrees, on a horizontal gradient.
    dict(name="gradient_mono.png", width=760, background="gradient", noise=6, angle=2.5, lines=[
        ("Order number: 4527-836", "DejaVuSansMono", 28, 0),
        ("Shipping date: June 27", "DejaVuSansMono", 28, 0),
        ("Total weight: 3.75 kg", "DejaVuSansMono", 28, 0),
        ("Status: ready for delivery", "DejaVuSansMono", 28, 0),
    ]),
    # Large text, two lines, turned the other way, with noise.
    dict(name="large_sans.png", width=960, background="plain", noise=12, angle=-2, lines=[
        ("Please keep this door shut", "LiberationSans", 48, 0),
        ("Staff entrance at the back", "LiberationSans", 48, 0),
    ]),
    # A different font, size and small angle on every line, on light grey.
    dict(name="mixed_lines.png", width=720, background="grey", noise=6, angle=0, lines=[
        ("Notes from the science class", "DejaVuSerif", 30, -1.5),
        ("Plants need water and sunlight", "LiberationSans", 26, 1.5),
        ("Read pages 34-56 before Friday.", "DejaVuSans", 20, -1),
        ("Don't forget your pencil", "LiberationSerif", 38, 1),
    ]),
    # Dark blue serif text on faint squared paper, turned one degree, with noise.
    dict(name="grid_serif.png", width=860, background="grid", noise=8, angle=-1, ink=(25, 40, 110),
         lines=[
             ("Dear Emma, thank you for", "DejaVuSerif", 36, 0),
             ("the lovely card. See you on", "DejaVuSerif", 36, 0),
             ("Sunday at the station (gate 7).", "DejaVuSerif", 36, 0),
         ]),
]


def check(spec):
    """Fails unless the image keeps to the limits the OCR tests rely on."""
    assert 640 <= spec["width"] <= 1000 and 2 <= len(spec["lines"]) <= 5, spec["name"]
    assert abs(spec["angle"]) <= 3, spec["name"]
    for text, font, size, angle in spec["lines"]:
        assert 10 <= len(text) <= 40 and re.fullmatch(r"[A-Za-z0-9 .,:'()-]+", text), text
        assert font in FONTS and 20 <= size <= 48 and abs(angle) <= 3, text


def load_font(name, size):
    path, package = FONTS[name]
    if not os.path.exists(path):
        sys.exit(f"render_test_images: {path} is missing; install the Debian package {package}")
    return ImageFont.truetype(path, size, layout_engine=ImageFont.Layout.BASIC)


def text_block(lines, angle):
    """The text as a mask (255 = ink) cropped to the ink; every line turned about its centre."""
    pad = 80  # room for the turned lines' ends
    fonts = [load_font(name, size) for _, name, size, _ in lines]
    widths = [int(font.getlength(text)) + 8 for (text, *_), font in zip(lines, fonts)]
    tops = [pad]
    for (_, _, size_a, _), (_, _, size_b, _) in zip(lines, lines[1:]):
        tops.append(tops[-1] + round(SPACING * max(size_a, size_b)))
    block = Image.new("L", (max(widths) + 2 * pad, tops[-1] + 2 * lines[-1][2] + pad), 0)
    for (text, _, _, line_angle), font, width, top in zip(lines, fonts, widths, tops):
        ascent, descent = font.getmetrics()
        line = Image.new("L", (width, ascent + descent + 8), 0)
        ImageDraw.Draw(line).text((4, 4), text, font=font, fill=255)
        turned = line.rotate(line_angle, resample=Image.BICUBIC, expand=True)
        x = pad + width // 2 - turned.width // 2
        y = top + line.height // 2 - turned.height // 2
        block.paste(255, (x, y, x + turned.width, y + turned.height), mask=turned)
    block = block.rotate(angle, resample=Image.BICUBIC, expand=True)
    return block.crop(block.getbbox())


def noise_image(rng, size, amount):
    """Grey uniform noise in 128 - amount .. 128 + amount, for ImageChops.add(..., offset=-128)."""
    noise = Image.frombytes("L", size, rng.randbytes(size[0] * size[1]))
    return noise.point(lambda v: 128 - amount + v * 2 * amount // 255).convert("RGB")


def background(kind, size, rng):
    width, height = size
    if kind == "plain":
        return Image.new("RGB", size, (255, 255, 255))
    if kind == "grey":
        return Image.new("RGB", size, (232, 232, 228))
    if kind == "paper":  # cream paper with soft blotches
        blotches = noise_image(rng, (width // 24 + 2, height // 24 + 2), 10)
        paper = Image.new("RGB", size, (244, 238, 222))
        return ImageChops.add(paper, blotches.resize(size, Image.BICUBIC), offset=-128)
    if kind == "gradient":  # light blue on the left to near white on the right
        ramp = Image.linear_gradient("L").rotate(90).resize(size, Image.BILINEAR)
        return ImageOps.colorize(ImageOps.mirror(ramp), (250, 250, 246), (200, 214, 232))
    if kind == "grid":  # faint squared paper
        image = Image.new("RGB", size, (250, 250, 246))
        draw = ImageDraw.Draw(image)
        for x in range(12, width, 25):
            draw.line([(x, 0), (x, height)], fill=(214, 224, 240))
        for y in range(12, height, 25):
            draw.line([(0, y), (width, y)], fill=(214, 224, 240))
        return image
    raise ValueError(kind)


def render(spec, rng):
    block = text_block(spec["lines"], spec["angle"])
    size = (spec["width"], block.height + 2 * MARGIN)
    if block.width + 2 * MARGIN > size[0]:
        sys.exit(f"render_test_images: the text of {spec['name']} is too wide ({block.width} px)")
    mask = Image.new("L", size, 0)
    mask.paste(block, (MARGIN, MARGIN))
    ink = Image.new("RGB", size, spec.get("ink", (30, 30, 30)))
    image = Image.composite(ink, background(spec["background"], size, rng), mask)
    if spec["noise"]:
        image = ImageChops.add(image, noise_image(rng, size, spec["noise"]), offset=-128)
    return image


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    out_dir = sys.argv[1]
    for name in FONTS:  # fail before writing anything when a font package is missing
        load_font(name, 20)
    os.makedirs(out_dir, exist_ok=True)
    expected = []
    for index, spec in enumerate(IMAGES):
        check(spec)
        render(spec, random.Random(SEED + index)).save(os.path.join(out_dir, spec["name"]))
        expected += [f"{spec['name']}\t{text}\n" for text, *_ in spec["lines"]]
    with open(os.path.join(out_dir, "expected.txt"), "w", encoding="utf-8") as f:
        f.writelines(expected)
    print(f"render_test_images: wrote {len(IMAGES)} images and expected.txt to {out_dir}")


if __name__ == "__main__":
    main()
