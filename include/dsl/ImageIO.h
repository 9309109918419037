#pragma once
/// Reading and writing images: PNG (libpng), JPEG (libjpeg) and PPM/PGM (no dependency).
///
/// Images are buffers of x, y and, for colour, c (channel): `img(x, y, c)`, with the channels of
/// a pixel `width * height` elements apart (planar). Grey images have two dimensions.
/// 8-bit files load as uint8, 16-bit PNG and PPM/PGM as uint16. A missing, truncated or corrupt
/// file is a RuntimeError that names the file and what is wrong with it.
///
/// Files are treated as untrusted input. A loader checks the size a header declares before it
/// allocates anything of that size: an image of more than 2^31 - 1 values (width x height x
/// channels, the most a Buffer holds) is refused, and so is a PNG whose file is too small to hold
/// its declared pixels even at deflate's best compression (1032:1) or a PPM/PGM shorter than
/// its pixels. A JPEG that ends before its last row is refused as truncated (libjpeg would make
/// up grey rows), and decoding one may use at most 1 GiB of working memory (a progressive JPEG
/// keeps every coefficient). Only regular files are read (not directories, pipes or devices).

#include <cstddef>
#include <string>

#include "dsl/Buffer.h"

namespace dsl {

/// Loads a .png, .jpg/.jpeg, .ppm or .pgm file (chosen by the file's contents, not its name).
Buffer<> load_image(const std::string &path);

/// Decodes an image file held in memory (`size` bytes at `data`), as load_image does; `name`
/// stands for the file in error messages.
Buffer<> load_image_from_memory(const void *data, size_t size,
                                const std::string &name = "<memory>");

/// Saves a uint8 or uint16 buffer of 2 dimensions (grey) or 3 (1, 2, 3 or 4 channels) as
/// .png, .jpg/.jpeg (uint8, grey or RGB), .ppm (3 channels) or .pgm (grey), chosen by the
/// extension. The buffer may have any mins and strides.
void save_image(const Buffer<> &image, const std::string &path);

}  // namespace dsl
