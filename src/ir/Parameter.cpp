#include "ir/Parameter.h"

#include "ir/Error.h"

namespace dsl::ir {

Parameter::Parameter(Type type, bool is_buffer, int dimensions, const std::string &name)
    : contents_(std::make_shared<ParameterContents>()) {
    contents_->name = name;
    contents_->type = type;
    contents_->is_buffer = is_buffer;
    contents_->dimensions = dimensions;
}

}  // namespace dsl::ir
