#include "dsl/Argument.h"

#include "ir/Parameter.h"

namespace dsl {

const std::string &Argument::name() const {
    return contents_->name;
}

bool Argument::is_buffer() const {
    return contents_->is_buffer;
}

Type Argument::type() const {
    return contents_->type;
}

int Argument::dimensions() const {
    return contents_->dimensions;
}

}  // namespace dsl
