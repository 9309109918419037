#pragma once
// Greedy CTC decoding of the recogniser's output: the likeliest class per time step, repeats
// merged, blanks dropped.

#include <string>
#include <vector>

namespace ocr {

struct Decoded {
    std::string text;
    /// The mean probability of the characters kept (0 for an empty line).
    float score = 0;
};

/// Decodes `steps` time steps of `classes` probabilities (row-major, one row per step) with
/// class 0 the blank and class i the character dictionary[i - 1].
Decoded ctc_greedy_decode(const float *probabilities, int steps, int classes,
                          const std::vector<std::string> &dictionary);

/// The dictionary of a PaddleOCR recogniser: one character per line, then a space (the
/// models are trained with a space as the last class). Errors name the file.
std::vector<std::string> load_dictionary(const std::string &path);

}  // namespace ocr
