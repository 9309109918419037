#include "dsl/Type.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "ir/Float16.h"

namespace dsl {

bool Type::is_valid() const {
    if (lanes_ < 1) return false;
    switch (code_) {
        case TypeCode::Int:
        case TypeCode::UInt:
            return bits_ == 1 || bits_ == 8 || bits_ == 16 || bits_ == 32 || bits_ == 64;
        case TypeCode::Float:
            return bits_ == 16 || bits_ == 32 || bits_ == 64;
        case TypeCode::BFloat:
            return bits_ == 16;
        case TypeCode::Handle:
            return bits_ == 64;
    }
    return false;
}

int64_t Type::int_min() const {
    if (is_uint()) return 0;
    if (bits_ >= 64) return std::numeric_limits<int64_t>::min();
    return -(int64_t(1) << (bits_ - 1));
}

int64_t Type::int_max() const {
    if (is_uint()) {
        return bits_ >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << bits_) - 1;
    }
    if (bits_ >= 64) return std::numeric_limits<int64_t>::max();
    return (int64_t(1) << (bits_ - 1)) - 1;
}

uint64_t Type::uint_max() const {
    if (is_int()) return static_cast<uint64_t>(int_max());
    return bits_ >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << bits_) - 1;
}

bool Type::can_represent(Type other) const {
    if (lanes_ != other.lanes_ && other.lanes_ != 1 && lanes_ != 1) return false;
    if (code_ == other.code_ && bits_ >= other.bits_) return true;
    if (is_int() && other.is_uint()) return bits_ > other.bits_;
    if (is_uint() && other.is_int()) return false;
    if (code_ == TypeCode::Float && other.is_int_or_uint()) {
        // Significant bits: float16 11, float32 24, float64 53.
        int significant = bits_ == 16 ? 11 : bits_ == 32 ? 24 : 53;
        return other.bits_ - (other.is_int() ? 1 : 0) <= significant;
    }
    if (code_ == TypeCode::Float && other.is_bfloat()) return bits_ >= 32;
    return false;
}

bool Type::can_represent(int64_t v) const {
    if (is_int()) return v >= int_min() && v <= int_max();
    if (is_uint()) return v >= 0 && static_cast<uint64_t>(v) <= uint_max();
    if (is_float()) {
        double d = static_cast<double>(v);
        return d < std::ldexp(1.0, 63) && static_cast<int64_t>(d) == v && can_represent(d);
    }
    return false;
}

bool Type::can_represent(uint64_t v) const {
    if (is_int()) return v <= static_cast<uint64_t>(int_max());
    if (is_uint()) return v <= uint_max();
    if (is_float()) {
        double d = static_cast<double>(v);
        return d < std::ldexp(1.0, 64) && static_cast<uint64_t>(d) == v && can_represent(d);
    }
    return false;
}

bool Type::can_represent(double v) const {
    if (is_float()) return std::isnan(v) || ir::round_to_float(v, bits_, is_bfloat()) == v;
    if (std::isnan(v) || std::trunc(v) != v) return false;
    // Compare against powers of two, which doubles hold exactly.
    if (is_int()) return v >= -std::ldexp(1.0, bits_ - 1) && v < std::ldexp(1.0, bits_ - 1);
    if (is_uint()) return v >= 0 && v < std::ldexp(1.0, bits_);
    return false;
}

std::string Type::to_string() const {
    std::string s;
    switch (code_) {
        case TypeCode::Int:
            s = "int" + std::to_string(bits_);
            break;
        case TypeCode::UInt:
            s = bits_ == 1 ? "bool" : "uint" + std::to_string(bits_);
            break;
        case TypeCode::Float:
            s = "float" + std::to_string(bits_);
            break;
        case TypeCode::BFloat:
            s = "bfloat" + std::to_string(bits_);
            break;
        case TypeCode::Handle:
            s = "handle";
            break;
    }
    if (lanes_ != 1) s += "x" + std::to_string(lanes_);
    return s;
}

std::ostream &operator<<(std::ostream &os, const Type &t) {
    return os << t.to_string();
}

}  // namespace dsl
