// CTC greedy decoding and the dictionary (ctc.h).
#include "ctc.h"

#include <fstream>
#include <stdexcept>

namespace ocr {

Decoded ctc_greedy_decode(const float *probabilities, int steps, int classes,
                          const std::vector<std::string> &dictionary) {
    Decoded d;
    int previous = -1;
    double sum = 0;
    int kept = 0;
    for (int t = 0; t < steps; t++) {
        const float *row = probabilities + static_cast<size_t>(t) * static_cast<size_t>(classes);
        int best = 0;
        for (int c = 1; c < classes; c++) {
            if (row[c] > row[best]) best = c;
        }
        if (best != 0 && best != previous && best - 1 < static_cast<int>(dictionary.size())) {
            d.text += dictionary[static_cast<size_t>(best - 1)];
            sum += row[best];
            kept++;
        }
        previous = best;
    }
    d.score = kept ? static_cast<float>(sum / kept) : 0.0f;
    return d;
}

std::vector<std::string> load_dictionary(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open the dictionary \"" + path + "\"");
    std::vector<std::string> dictionary;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        dictionary.push_back(line);
    }
    if (dictionary.empty()) throw std::runtime_error("the dictionary \"" + path + "\" is empty");
    dictionary.push_back(" ");
    return dictionary;
}

}  // namespace ocr
