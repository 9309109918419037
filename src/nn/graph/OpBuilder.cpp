// BuildContext's attribute readers and the table of builders.
#include "nn/graph/OpBuilder.h"

#include "dsl/Error.h"

namespace dsl::nn::graph {

bool BuildContext::has_input(int i) const {
    return i >= 0 && i < inputs() && !node_.inputs[static_cast<size_t>(i)].empty();
}

namespace {
const Attribute *find(const Node &n, const std::string &name) {
    auto it = n.attributes.find(name);
    return it == n.attributes.end() ? nullptr : &it->second;
}
}  // namespace

void BuildContext::fail(const std::string &message) const {
    throw CompileError(where() + ": " + message);
}

int64_t BuildContext::attr_int(const std::string &name, int64_t default_value) const {
    const Attribute *a = find(node_, name);
    if (!a) return default_value;
    if (a->kind != Attribute::Kind::Int) fail("attribute \"" + name + "\" must be an integer.");
    return a->i;
}

double BuildContext::attr_float(const std::string &name, double default_value) const {
    const Attribute *a = find(node_, name);
    if (!a) return default_value;
    if (a->kind == Attribute::Kind::Int) return static_cast<double>(a->i);
    if (a->kind != Attribute::Kind::Float) fail("attribute \"" + name + "\" must be a float.");
    return a->f;
}

std::string BuildContext::attr_string(const std::string &name,
                                      const std::string &default_value) const {
    const Attribute *a = find(node_, name);
    if (!a) return default_value;
    if (a->kind != Attribute::Kind::String) fail("attribute \"" + name + "\" must be a string.");
    return a->s;
}

std::vector<int64_t> BuildContext::attr_ints(const std::string &name,
                                             const std::vector<int64_t> &default_value) const {
    const Attribute *a = find(node_, name);
    if (!a) return default_value;
    if (a->kind == Attribute::Kind::Int) return {a->i};
    if (a->kind != Attribute::Kind::Ints) fail("attribute \"" + name + "\" must be integers.");
    return a->ints;
}

std::vector<double> BuildContext::attr_floats(const std::string &name) const {
    const Attribute *a = find(node_, name);
    if (!a) return {};
    if (a->kind == Attribute::Kind::Float) return {a->f};
    if (a->kind != Attribute::Kind::Floats) fail("attribute \"" + name + "\" must be floats.");
    return a->floats;
}

Buffer<> BuildContext::attr_tensor(const std::string &name) const {
    const Attribute *a = find(node_, name);
    if (!a || a->kind != Attribute::Kind::Tensor)
        fail("needs the tensor attribute \"" + name + "\".");
    return a->t;
}

Type BuildContext::attr_type(const std::string &name, Type default_value) const {
    if (!has_attr(name)) return default_value;
    std::string unsupported;
    std::optional<Type> t = element_type(attr_int(name, 0), &unsupported);
    if (!t)
        fail("attribute \"" + name + "\" asks for " + unsupported +
             ", which dsl does not support.");
    return *t;
}

const std::map<std::string, Builder> &builders() {
    static const std::map<std::string, Builder> table = [] {
        std::map<std::string, Builder> t;
        add_elementwise_builders(t);
        add_movement_builders(t);
        add_reduce_builders(t);
        add_conv_builders(t);
        add_norm_builders(t);
        add_resize_builders(t);
        add_quantize_builders(t);
        add_recurrent_builders(t);
        add_spectral_builders(t);
        add_selection_builders(t);
        return t;
    }();
    return table;
}

}  // namespace dsl::nn::graph
