#pragma once
/// Boundary conditions: Funcs that extend an input beyond its bounds, so that stencils can read
/// outside it. Each takes the source (a Buffer, an ImageParam, or a Func with explicit bounds)
/// and returns a Func defined everywhere:
///
///   Func clamped = BoundaryConditions::repeat_edge(input);
///   blur(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
///
/// For a source of extent 4 with values a b c d, coordinates -3 .. 6 read:
///   constant_exterior(v):  v v v a b c d v v v
///   repeat_edge:           a a a a b c d d d d
///   repeat_image:          b c d a b c d a b c
///   mirror_image:          c b a a b c d d c b
///   mirror_interior:       d c b a b c d c b a

#include <utility>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Func.h"
#include "dsl/Param.h"

namespace dsl::BoundaryConditions {

/// `{min, extent}` per dimension: `repeat_edge(input, {{0, w}, {0, h}})`. Dimensions past the
/// last one given, and those given as `{Expr(), Expr()}`, are left unbounded (read as they are).
using Bounds = std::vector<std::pair<Expr, Expr>>;

Func constant_exterior(const Func &source, const Expr &value, const Bounds &bounds);
Func constant_exterior(const Buffer<> &source, const Expr &value);
Func constant_exterior(const ImageParam &source, const Expr &value);
Func constant_exterior(const Buffer<> &source, const Expr &value, const Bounds &bounds);
Func constant_exterior(const ImageParam &source, const Expr &value, const Bounds &bounds);

Func repeat_edge(const Func &source, const Bounds &bounds);
Func repeat_edge(const Buffer<> &source);
Func repeat_edge(const ImageParam &source);
Func repeat_edge(const Buffer<> &source, const Bounds &bounds);
Func repeat_edge(const ImageParam &source, const Bounds &bounds);

Func repeat_image(const Func &source, const Bounds &bounds);
Func repeat_image(const Buffer<> &source);
Func repeat_image(const ImageParam &source);
Func repeat_image(const Buffer<> &source, const Bounds &bounds);
Func repeat_image(const ImageParam &source, const Bounds &bounds);

Func mirror_image(const Func &source, const Bounds &bounds);
Func mirror_image(const Buffer<> &source);
Func mirror_image(const ImageParam &source);
Func mirror_image(const Buffer<> &source, const Bounds &bounds);
Func mirror_image(const ImageParam &source, const Bounds &bounds);

Func mirror_interior(const Func &source, const Bounds &bounds);
Func mirror_interior(const Buffer<> &source);
Func mirror_interior(const ImageParam &source);
Func mirror_interior(const Buffer<> &source, const Bounds &bounds);
Func mirror_interior(const ImageParam &source, const Bounds &bounds);

}  // namespace dsl::BoundaryConditions
