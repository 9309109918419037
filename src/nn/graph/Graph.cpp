// Naming nodes and types in messages.
#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

std::string Node::describe() const {
    return "node \"" + name + "\" (" + (domain.empty() ? "" : domain + ".") + op_type + ")";
}

std::optional<Type> element_type(int64_t code, std::string *unsupported) {
    // The codes of ONNX's TensorProto.DataType.
    switch (code) {
        case 1:
            return Float(32);
        case 2:
            return UInt(8);
        case 3:
            return Int(8);
        case 4:
            return UInt(16);
        case 5:
            return Int(16);
        case 6:
            return Int(32);
        case 7:
            return Int(64);
        case 9:
            return Bool();
        case 10:
            return Float(16);
        case 11:
            return Float(64);
        case 12:
            return UInt(32);
        case 13:
            return UInt(64);
        case 16:
            return Type(TypeCode::BFloat, 16);
        case 8:
            if (unsupported) *unsupported = "string";
            return std::nullopt;
        case 14:
            if (unsupported) *unsupported = "complex64";
            return std::nullopt;
        case 15:
            if (unsupported) *unsupported = "complex128";
            return std::nullopt;
        default:
            if (unsupported) *unsupported = "element type " + std::to_string(code);
            return std::nullopt;
    }
}

std::string onnx_type_name(Type t) {
    if (t.is_bool()) return "bool";
    if (t.is_bfloat()) return "bfloat16";
    if (t.is_float()) return t.bits() == 16 ? "float16" : t.bits() == 32 ? "float" : "double";
    return std::string(t.is_int() ? "int" : "uint") + std::to_string(t.bits());
}

}  // namespace dsl::nn::graph
