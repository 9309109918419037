#include "dsl/Param.h"
#include "dsl/Var.h"

#include <atomic>

#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Parameter.h"
#include "lang/Function.h"

namespace dsl {

namespace detail {

std::string fresh_param_name(const char *prefix) {
    static std::atomic<int> counter{0};
    return std::string(prefix) + std::to_string(counter.fetch_add(1));
}

std::shared_ptr<ir::ParameterContents> make_scalar_param(Type t, const std::string &name) {
    user_assert(!name.empty()) << "a Param needs a non-empty name.";
    auto c = std::make_shared<ir::ParameterContents>();
    c->name = name;
    c->type = t;
    return c;
}

void check_param_type(const ir::ParameterContents &p, Type t, const char *what) {
    user_assert(p.type == t) << "Param \"" << p.name << "\" is of type " << p.type << ", but "
                             << what << " gives it the C++ type of " << t
                             << ". Use the C++ type of " << p.type << ".";
}

Type param_type(const ir::ParameterContents &p) {
    return p.type;
}

void set_param_bits(ir::ParameterContents &p, uint64_t bits) {
    p.scalar_bits = bits;
    p.has_value = true;
}

uint64_t get_param_bits(const ir::ParameterContents &p) {
    return p.scalar_bits;
}

void set_param_range(ir::ParameterContents &p, const Expr &default_value, const Expr &min,
                     const Expr &max) {
    p.default_value = default_value;
    p.min_value = min;
    p.max_value = max;
    // Lowering reads the range (to bound regions), so compiled pipelines are stale.
    lang::bump_pipeline_epoch();
}

void set_param_estimate(ir::ParameterContents &p, const Expr &value) {
    p.estimate = value;
}

void check_param_range(const ir::ParameterContents &p, bool min_below_max, bool default_inside,
                       const Expr &default_value, const Expr &min, const Expr &max) {
    user_assert(min_below_max) << "Param \"" << p.name << "\": the minimum " << min
                               << " is above the maximum " << max
                               << "; give the smaller bound first.";
    user_assert(default_inside) << "Param \"" << p.name << "\": the default value " << default_value
                                << " lies outside its range [" << min << ", " << max
                                << "]; give a default within the range.";
}

const Expr &param_default(const ir::ParameterContents &p) {
    return p.default_value;
}

Expr param_expr(const std::shared_ptr<ir::ParameterContents> &p) {
    return ir::Variable::make(p->type, p->name, ir::Parameter(p));
}

const std::string &param_name(const ir::ParameterContents &p) {
    return p.name;
}

}  // namespace detail

ImageParam::ImageParam(Type type, int dimensions, const std::string &name)
    : contents_(std::make_shared<ir::ParameterContents>()) {
    user_assert(dimensions >= 0) << "ImageParam \"" << name << "\": negative number of dimensions.";
    user_assert(type.is_valid() && type.is_scalar() && !type.is_handle())
        << "ImageParam \"" << name << "\": invalid element type " << type << ".";
    contents_->name = name.empty() ? detail::fresh_param_name("image") : name;
    contents_->type = type;
    contents_->is_buffer = true;
    contents_->dimensions = dimensions;
}

namespace {

/// A CompileError unless `buffer` may stand for ImageParam `p`; `where` says how it came
/// (" in a ParamMap", or "" for set()).
void check_image_buffer(const ImageParam &p, const Buffer<> &buffer, const char *where) {
    user_assert(buffer.defined()) << "ImageParam \"" << p.name() << "\": "
                                  << (*where ? "an undefined buffer"
                                             : "set() with an undefined buffer")
                                  << where << ".";
    user_assert(buffer.type() == p.type())
        << "ImageParam \"" << p.name() << "\" holds " << p.type() << " but was given a buffer of "
        << buffer.type() << where << ".";
    user_assert(buffer.dimensions() == p.dimensions())
        << "ImageParam \"" << p.name() << "\" has " << p.dimensions()
        << " dimensions but was given a buffer with " << buffer.dimensions() << where << ".";
}

}  // namespace

void ImageParam::set(const Buffer<> &buffer) {
    check_image_buffer(*this, buffer, "");
    contents_->buffer = buffer;
}

ParamMap::Mapping::Mapping(const ImageParam &p, const Buffer<> &b,
                           std::function<void(const Buffer<> &)> bounds)
    : param_(p.contents()), buffer_(b), bounds_(std::move(bounds)) {
    user_assert(b.defined() || bounds_)
        << "ImageParam \"" << p.name()
        << "\": a ParamMap gives it a null Buffer pointer or an undefined buffer; give a buffer, "
           "or the address of the Buffer that infer_input_bounds() should set.";
    if (b.defined()) check_image_buffer(p, b, " in a ParamMap");
}

ParamMap::ParamMap(std::initializer_list<Mapping> mappings) {
    for (const Mapping &m : mappings)
        add(m);
}

const ParamMap::Mapping *ParamMap::find(const ir::ParameterContents *p) const {
    for (const Mapping &m : mappings_) {
        if (m.param().get() == p) return &m;
    }
    return nullptr;
}

void ParamMap::add(const Mapping &m) {
    for (Mapping &earlier : mappings_) {
        if (earlier.param() == m.param()) {
            earlier = m;
            return;
        }
    }
    mappings_.push_back(m);
}

Buffer<> ImageParam::get() const {
    return contents_->buffer;
}
void ImageParam::reset() {
    contents_->buffer = Buffer<>();
}
ImageParam &ImageParam::trace_loads() {
    contents_->trace_loads = true;
    lang::bump_pipeline_epoch();
    return *this;
}
const std::string &ImageParam::name() const {
    return contents_->name;
}
Type ImageParam::type() const {
    return contents_->type;
}
int ImageParam::dimensions() const {
    return contents_->dimensions;
}

Expr ImageParam::operator()(const std::vector<Expr> &coords_in) const {
    std::vector<Expr> coords =
        detail::expand_remaining_dims(coords_in, dimensions(), "ImageParam \"" + name() + "\"");
    user_assert(static_cast<int>(coords.size()) == dimensions())
        << "ImageParam \"" << name() << "\" has " << dimensions()
        << " dimensions but is accessed with " << coords.size() << " coordinates.";
    std::vector<Expr> args;
    for (size_t i = 0; i < coords.size(); i++) {
        user_assert(coords[i].defined())
            << "ImageParam \"" << name() << "\": coordinate " << i << " is undefined.";
        user_assert(coords[i].type().is_int_or_uint() && coords[i].type().is_scalar() &&
                    !coords[i].type().is_bool())
            << "ImageParam \"" << name() << "\": coordinate " << i << " is " << coords[i]
            << " of type " << coords[i].type() << "; coordinates are integers.";
        args.push_back(cast(Int(32), coords[i]));
    }
    return ir::Call::make(type(), name(), args, ir::Call::CallType::Image, 0, {},
                          ir::Parameter(contents_));
}

Expr ImageParam::min(int dim) const {
    return ir::Variable::make(Int(32), ir::names::buffer_min(name(), dim),
                              ir::Parameter(contents_));
}
Expr ImageParam::extent(int dim) const {
    return ir::Variable::make(Int(32), ir::names::buffer_extent(name(), dim),
                              ir::Parameter(contents_));
}
Expr ImageParam::stride(int dim) const {
    return ir::Variable::make(Int(32), ir::names::buffer_stride(name(), dim),
                              ir::Parameter(contents_));
}

}  // namespace dsl
