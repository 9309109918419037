#include "codegen/PrintfFormat.h"

#include <cctype>

namespace dsl::codegen {

PrintfFormat printf_format(const std::string &format, const std::vector<Type> &types,
                           const std::string &long_modifier) {
    PrintfFormat out;
    const std::string &f = format;
    for (size_t p = 0; p < f.size(); p++) {
        if (f[p] == '{' && p + 1 < f.size() && f[p + 1] == '{') {
            out.text += '{';
            p++;
            continue;
        }
        // {k}, for a value k there is.
        size_t q = p + 1;
        while (q < f.size() && std::isdigit(static_cast<unsigned char>(f[q])))
            q++;
        if (f[p] == '{' && q > p + 1 && q < f.size() && f[q] == '}' && q - p < 10) {
            const size_t k = std::stoul(f.substr(p + 1, q - p - 1));
            if (k < types.size()) {
                const Type t = types[k];
                if (t.is_float() || t.is_bfloat()) {
                    out.text += t.bits() == 64 ? "%e" : "%f";
                } else {
                    const bool is_unsigned = t.is_uint() || t.is_bool();
                    out.text += "%" + (t.bits() == 64 ? long_modifier : std::string()) +
                                (is_unsigned ? "u" : "d");
                }
                out.values.push_back(k);
                p = q;
                continue;
            }
        }
        out.text += f[p] == '%' ? std::string("%%") : std::string(1, f[p]);
    }
    return out;
}

}  // namespace dsl::codegen
