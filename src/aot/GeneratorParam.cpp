// The text conversions behind GeneratorParam<T> (dsl/Generator.h).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "dsl/Generator.h"

namespace dsl::detail {

namespace {

bool starts_like_a_number(const std::string &text) {
    // strtoll and strtod skip leading blanks and accept "inf"/"nan"; the command line should not.
    if (text.empty()) return false;
    char c = text[0];
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

}  // namespace

bool parse_integer(const std::string &text, long long &value) {
    if (!starts_like_a_number(text)) return false;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size()) return false;
    value = v;
    return true;
}

bool parse_unsigned(const std::string &text, unsigned long long &value) {
    if (!starts_like_a_number(text) || text[0] == '-') return false;
    errno = 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size()) return false;
    value = v;
    return true;
}

bool parse_floating(const std::string &text, double &value) {
    if (!starts_like_a_number(text)) return false;
    errno = 0;
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return false;
    value = v;
    return true;
}

std::string format_floating(double value) {
    std::ostringstream s;
    s << std::setprecision(9) << value;
    return s.str();
}

std::string without_error_prefix(const std::string &message) {
    const std::string prefix = "Error: ";
    return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

void throw_bad_param_value(const std::string &name, const std::string &text,
                           const std::string &expected) {
    std::string what = without_error_prefix(expected);
    if (what.empty() || what.back() != '.') what += ".";
    throw CompileError("Error: GeneratorParam \"" + name + "\": cannot use \"" + text + "\"; " +
                       what);
}

const std::vector<std::pair<std::string, Type>> &type_names() {
    static const std::vector<std::pair<std::string, Type>> names = [] {
        std::vector<Type> types = {Bool(),    Int(8),    Int(16),   Int(32),  Int(64),
                                   UInt(8),   UInt(16),  UInt(32),  UInt(64), Float(16),
                                   Float(32), Float(64), BFloat(16)};
        std::vector<std::pair<std::string, Type>> result;
        for (const Type &t : types)
            result.emplace_back(t.to_string(), t);
        return result;
    }();
    return names;
}

std::string type_name_list() {
    std::string s;
    for (const auto &[word, t] : type_names())
        s += (s.empty() ? "" : ", ") + word;
    return s;
}

std::string type_to_param_string(const Type &t) {
    return t == Type() ? "unset" : t.to_string();
}

}  // namespace dsl::detail
