#pragma once
/// Reading and writing images: PNG (libpng), JPEG (libjpeg) and PPM/PGM (no dependency).
///
/// Images are buffers of x, y and, for colour, c (channel): `img(x, y, c)`, with the channels of
/// a pixel `width * height` elements apart (planar). Grey images have two dimensions.
/// 8-bit files load as uint8, 16-bit PNG and PPM/PGM as uint16. A missing, truncated or corrupt
/// file is a RuntimeError that names the file and what is wrong with it.

#include <string>

#include "dsl/Buffer.h"

namespace dsl {

/// Loads a .png, .jpg/.jpeg, .ppm or .pgm file (chosen by the file's contents, not its name).
Buffer<> load_image(const std::string &path);

/// Saves a uint8 or uint16 buffer of 2 dimensions (grey) or 3 (1, 2, 3 or 4 channels) as
/// .png, .jpg/.jpeg (uint8, grey or RGB), .ppm (3 channels) or .pgm (grey), chosen by the
/// extension. The buffer may have any mins and strides.
void save_image(const Buffer<> &image, const std::string &path);

}  // namespace dsl
