// Opset conversion through ONNX's version converter (onnx/OpsetConversion.h).
#include "nn/onnx/OpsetConversion.h"

#include <onnx/version_converter/convert.h>

#include "ir/Error.h"

namespace dsl::nn::onnx {

int64_t standard_opset(const ::onnx::ModelProto &m) {
    int64_t opset = 0;
    for (const auto &op : m.opset_import()) {
        if (op.domain().empty() || op.domain() == "ai.onnx") opset = op.version();
    }
    return opset;
}

::onnx::ModelProto with_opset_at_least(const ::onnx::ModelProto &m, int64_t opset,
                                       const std::string &path) {
    const int64_t from = standard_opset(m);
    if (from >= opset) return m;
    try {
        return ::onnx::version_conversion::ConvertVersion(m, static_cast<int>(opset));
    } catch (const std::exception &e) {
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        user_assert(false) << path << ": the model imports opset " << from << " and ONNX's "
                           << "version converter cannot raise it to " << opset << ": " << what;
    }
    return m;
}

}  // namespace dsl::nn::onnx
