#include "dsl/BoundaryConditions.h"

#include <functional>

#include "ir/Error.h"

namespace dsl::BoundaryConditions {

namespace {

Bounds buffer_bounds(const Buffer<> &b) {
    user_assert(b.defined()) << "boundary condition of an undefined buffer.";
    Bounds bounds;
    for (int d = 0; d < b.dimensions(); d++)
        bounds.push_back({Expr(b.dim(d).min()), Expr(b.dim(d).extent())});
    return bounds;
}

Bounds param_bounds(const ImageParam &p) {
    Bounds bounds;
    for (int d = 0; d < p.dimensions(); d++)
        bounds.push_back({p.min(d), p.extent(d)});
    return bounds;
}

Func param_func(const ImageParam &p) {
    Func f(p.name() + "_input");
    std::vector<Var> vars;
    std::vector<Expr> args;
    for (int d = 0; d < p.dimensions(); d++) {
        vars.emplace_back(p.name() + "_v" + std::to_string(d));
        args.push_back(vars.back());
    }
    f(vars) = p(args);
    return f;
}

/// Defines `name(x...) = source(remap(x, min, extent)...)`, optionally replaced by `exterior`
/// outside the bounds.
Func remap(const Func &source, const Bounds &bounds, const std::string &name,
           const std::function<Expr(const Expr &, const Expr &, const Expr &)> &coordinate,
           const Expr &exterior = Expr()) {
    user_assert(source.defined()) << name << ": the source Func \"" << source.name()
                                  << "\" is not defined.";
    user_assert(static_cast<int>(bounds.size()) <= source.dimensions())
        << name << ": the source \"" << source.name() << "\" has " << source.dimensions()
        << " dimensions but " << bounds.size() << " bounds were given; give at most one "
        << "{min, extent} per dimension.";
    Func f(source.name() + "_" + name);
    std::vector<Var> vars;
    std::vector<Expr> args;
    Expr inside;
    for (int d = 0; d < source.dimensions(); d++) {
        vars.emplace_back(f.name() + "_v" + std::to_string(d));
        Expr x = vars.back();
        // Dimensions past the bounds given, or with both bounds undefined, are unbounded.
        if (d >= static_cast<int>(bounds.size()) ||
            (!bounds[d].first.defined() && !bounds[d].second.defined())) {
            args.push_back(x);
            continue;
        }
        const Expr &min = bounds[d].first, &extent = bounds[d].second;
        user_assert(min.defined() && extent.defined())
            << name << ": dimension " << d << " of the source \"" << source.name()
            << "\" has only one of its min and extent defined; give both, or neither to "
            << "leave that dimension unbounded.";
        args.push_back(coordinate(x, min, extent));
        Expr in_d = x >= min && x < min + extent;
        inside = inside.defined() ? inside && in_d : in_d;
    }
    if (!inside.defined()) inside = const_true();
    if (source.outputs() == 1) {
        Expr value = source(args);
        f(vars) = exterior.defined() ? select(likely(inside), value, cast(value.type(), exterior))
                                     : value;
    } else {
        std::vector<Expr> values;
        for (int i = 0; i < source.outputs(); i++) {
            Expr value = source(args)[i];
            values.push_back(exterior.defined()
                                 ? select(likely(inside), value, cast(value.type(), exterior))
                                 : value);
        }
        f(vars) = Tuple(values);
    }
    return f;
}

Expr clamp_to(const Expr &x, const Expr &min, const Expr &extent) {
    return clamp(x, min, min + extent - 1);
}

// The remapped coordinates below always lie in [min, min + extent - 1]; the final clamp changes
// no value but lets bounds inference see that (it cannot relate a select's condition to its
// branches).
Expr wrap(const Expr &x, const Expr &min, const Expr &extent) {
    return clamp_to((x - min) % extent + min, min, extent);
}

Expr mirror(const Expr &x, const Expr &min, const Expr &extent) {
    Expr period = extent * 2;
    Expr m = (x - min) % period;
    return clamp_to(select(m < extent, m, period - 1 - m) + min, min, extent);
}

Expr mirror_no_edge(const Expr &x, const Expr &min, const Expr &extent) {
    Expr period = max(extent * 2 - 2, 1);
    Expr m = (x - min) % period;
    return clamp_to(select(m < extent, m, period - m) + min, min, extent);
}

}  // namespace

Func constant_exterior(const Func &source, const Expr &value, const Bounds &bounds) {
    user_assert(value.defined()) << "constant_exterior: the exterior value is undefined.";
    return remap(source, bounds, "constant_exterior", clamp_to, value);
}
Func constant_exterior(const Buffer<> &source, const Expr &value) {
    return constant_exterior(Func(source), value, buffer_bounds(source));
}
Func constant_exterior(const ImageParam &source, const Expr &value) {
    return constant_exterior(param_func(source), value, param_bounds(source));
}
Func constant_exterior(const Buffer<> &source, const Expr &value, const Bounds &bounds) {
    return constant_exterior(Func(source), value, bounds);
}
Func constant_exterior(const ImageParam &source, const Expr &value, const Bounds &bounds) {
    return constant_exterior(param_func(source), value, bounds);
}

Func repeat_edge(const Func &source, const Bounds &bounds) {
    return remap(source, bounds, "repeat_edge", clamp_to);
}
Func repeat_edge(const Buffer<> &source) {
    return repeat_edge(Func(source), buffer_bounds(source));
}
Func repeat_edge(const ImageParam &source) {
    return repeat_edge(param_func(source), param_bounds(source));
}
Func repeat_edge(const Buffer<> &source, const Bounds &bounds) {
    return repeat_edge(Func(source), bounds);
}
Func repeat_edge(const ImageParam &source, const Bounds &bounds) {
    return repeat_edge(param_func(source), bounds);
}

Func repeat_image(const Func &source, const Bounds &bounds) {
    return remap(source, bounds, "repeat_image", wrap);
}
Func repeat_image(const Buffer<> &source) {
    return repeat_image(Func(source), buffer_bounds(source));
}
Func repeat_image(const ImageParam &source) {
    return repeat_image(param_func(source), param_bounds(source));
}
Func repeat_image(const Buffer<> &source, const Bounds &bounds) {
    return repeat_image(Func(source), bounds);
}
Func repeat_image(const ImageParam &source, const Bounds &bounds) {
    return repeat_image(param_func(source), bounds);
}

Func mirror_image(const Func &source, const Bounds &bounds) {
    return remap(source, bounds, "mirror_image", mirror);
}
Func mirror_image(const Buffer<> &source) {
    return mirror_image(Func(source), buffer_bounds(source));
}
Func mirror_image(const ImageParam &source) {
    return mirror_image(param_func(source), param_bounds(source));
}
Func mirror_image(const Buffer<> &source, const Bounds &bounds) {
    return mirror_image(Func(source), bounds);
}
Func mirror_image(const ImageParam &source, const Bounds &bounds) {
    return mirror_image(param_func(source), bounds);
}

Func mirror_interior(const Func &source, const Bounds &bounds) {
    return remap(source, bounds, "mirror_interior", mirror_no_edge);
}
Func mirror_interior(const Buffer<> &source) {
    return mirror_interior(Func(source), buffer_bounds(source));
}
Func mirror_interior(const ImageParam &source) {
    return mirror_interior(param_func(source), param_bounds(source));
}
Func mirror_interior(const Buffer<> &source, const Bounds &bounds) {
    return mirror_interior(Func(source), bounds);
}
Func mirror_interior(const ImageParam &source, const Bounds &bounds) {
    return mirror_interior(param_func(source), bounds);
}

}  // namespace dsl::BoundaryConditions
