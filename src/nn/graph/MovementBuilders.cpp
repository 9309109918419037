// ONNX's data-movement operators: their attributes and inputs across opsets, mapped onto
// dsl/nn/Movement.h.
#include "dsl/nn/Movement.h"
#include "ir/IROperator.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

namespace {

using Outputs = std::vector<Tensor>;

std::vector<int> to_ints(const std::vector<int64_t> &v) {
    return std::vector<int>(v.begin(), v.end());
}

std::vector<Expr> to_exprs(const std::vector<int64_t> &v) {
    std::vector<Expr> r;
    for (int64_t x : v)
        r.push_back(make_const(Int(64), x));
    return r;
}

ScatterReduction reduction_of(BuildContext &ctx) {
    std::string r = ctx.attr_string("reduction", "none");
    if (r == "none") return ScatterReduction::None;
    if (r == "add") return ScatterReduction::Add;
    if (r == "mul") return ScatterReduction::Mul;
    if (r == "max") return ScatterReduction::Max;
    if (r == "min") return ScatterReduction::Min;
    ctx.fail("reduction \"" + r + "\" is not one of none, add, mul, max, min.");
}

/// A tensor holding `values` (int64), for results known while compiling.
Tensor int64_constant(const std::vector<int64_t> &values, bool scalar) {
    Buffer<> b(Int(64),
               scalar ? std::vector<int>{} : std::vector<int>{static_cast<int>(values.size())});
    for (size_t i = 0; i < values.size(); i++)
        static_cast<int64_t *>(b.data())[i] = values[i];
    return Tensor(b, unique_name("shape_constant"));
}

}  // namespace

void add_movement_builders(std::map<std::string, Builder> &t) {
    t["Reshape"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        std::vector<Expr> s = ctx.opset() < 5 ? to_exprs(ctx.attr_ints("shape")) : ctx.values(1);
        bool allow_zero = ctx.attr_int("allowzero", 0) != 0;
        // 0 copies the input's extent (unless allowzero); -1 takes what the others leave.
        std::vector<Expr> resolved;
        for (size_t i = 0; i < s.size(); i++) {
            Expr in = i < static_cast<size_t>(x.rank()) ? cast(Int(64), x.dim(static_cast<int>(i)))
                                                        : make_const(Int(64), 0);
            resolved.push_back(allow_zero ? s[i] : select(s[i] == 0, in, s[i]));
        }
        Expr total = cast(Int(64), x.size());
        Shape shape;
        for (size_t i = 0; i < s.size(); i++) {
            Expr others = make_const(Int(64), 1);
            for (size_t j = 0; j < s.size(); j++) {
                if (j != i)
                    others = others * select(s[j] == -1, make_const(Int(64), 1), resolved[j]);
            }
            Expr inferred = select(others == 0, make_const(Int(64), 0),
                                   total / max(others, make_const(Int(64), 1)));
            shape.push_back(select(s[i] == -1, inferred, resolved[i]));
        }
        return Outputs{nn::reshape(x, shape)};
    };
    t["Flatten"] = [](BuildContext &ctx) {
        return Outputs{nn::flatten(ctx.input(0), static_cast<int>(ctx.attr_int("axis", 1)))};
    };
    t["Squeeze"] = [](BuildContext &ctx) {
        std::vector<int64_t> axes = ctx.opset() < 13   ? ctx.attr_ints("axes")
                                    : ctx.has_input(1) ? ctx.constant_values(1, "axes")
                                                       : std::vector<int64_t>{};
        return Outputs{nn::squeeze(ctx.input(0), to_ints(axes))};
    };
    t["Unsqueeze"] = [](BuildContext &ctx) {
        std::vector<int64_t> axes =
            ctx.opset() < 13 ? ctx.attr_ints("axes") : ctx.constant_values(1, "axes");
        return Outputs{nn::unsqueeze(ctx.input(0), to_ints(axes))};
    };
    t["Transpose"] = [](BuildContext &ctx) {
        return Outputs{nn::transpose(ctx.input(0), to_ints(ctx.attr_ints("perm")))};
    };
    t["Concat"] = [](BuildContext &ctx) {
        std::vector<Tensor> xs;
        for (int i = 0; i < ctx.inputs(); i++) {
            if (ctx.has_input(i)) xs.push_back(ctx.input(i));
        }
        return Outputs{nn::concat(xs, static_cast<int>(ctx.attr_int("axis", 0)))};
    };
    t["Split"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        int axis = normalize_axis(static_cast<int>(ctx.attr_int("axis", 0)), x.rank(), "Split");
        std::vector<Expr> sizes;
        if (ctx.opset() < 13 && ctx.has_attr("split")) {
            sizes = to_exprs(ctx.attr_ints("split"));
        } else if (ctx.opset() >= 13 && ctx.has_input(1)) {
            sizes = ctx.values(1);
        } else {
            int n = static_cast<int>(ctx.node().outputs.size());
            if (ctx.has_attr("num_outputs")) n = static_cast<int>(ctx.attr_int("num_outputs", n));
            // Equal parts, the last one smaller when the extent does not divide (opset 18).
            Expr d = x.dim(axis);
            Expr part = (d + (n - 1)) / n;
            for (int i = 0; i < n; i++)
                sizes.push_back(cast(Int(64), clamp(d - part * i, 0, part)));
        }
        return nn::split(x, axis, sizes);
    };
    t["Slice"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        std::vector<Expr> starts, ends, steps;
        std::vector<int64_t> axes;
        if (ctx.opset() < 10) {
            starts = to_exprs(ctx.attr_ints("starts"));
            ends = to_exprs(ctx.attr_ints("ends"));
            axes = ctx.attr_ints("axes");
        } else {
            starts = ctx.values(1);
            ends = ctx.values(2);
            if (ctx.has_input(3)) axes = ctx.constant_values(3, "axes");
            if (ctx.has_input(4)) steps = ctx.values(4);
        }
        if (axes.empty()) {
            for (size_t i = 0; i < starts.size(); i++)
                axes.push_back(static_cast<int64_t>(i));
        }
        if (starts.size() != axes.size() || ends.size() != axes.size())
            ctx.fail("starts, ends and axes must have one value per sliced axis.");
        return Outputs{nn::slice(x, starts, ends, to_ints(axes), steps)};
    };
    t["Gather"] = [](BuildContext &ctx) {
        return Outputs{
            nn::gather(ctx.input(0), ctx.input(1), static_cast<int>(ctx.attr_int("axis", 0)))};
    };
    t["GatherElements"] = [](BuildContext &ctx) {
        return Outputs{nn::gather_elements(ctx.input(0), ctx.input(1),
                                           static_cast<int>(ctx.attr_int("axis", 0)))};
    };
    t["GatherND"] = [](BuildContext &ctx) {
        return Outputs{nn::gather_nd(ctx.input(0), ctx.input(1),
                                     static_cast<int>(ctx.attr_int("batch_dims", 0)))};
    };
    t["ScatterElements"] = [](BuildContext &ctx) {
        return Outputs{nn::scatter_elements(ctx.input(0), ctx.input(1), ctx.input(2),
                                            static_cast<int>(ctx.attr_int("axis", 0)),
                                            reduction_of(ctx))};
    };
    t["Scatter"] = t["ScatterElements"];
    t["ScatterND"] = [](BuildContext &ctx) {
        return Outputs{nn::scatter_nd(ctx.input(0), ctx.input(1), ctx.input(2), reduction_of(ctx))};
    };
    t["Expand"] = [](BuildContext &ctx) {
        return Outputs{nn::expand(ctx.input(0), ctx.values(1))};
    };
    t["Tile"] = [](BuildContext &ctx) { return Outputs{nn::tile(ctx.input(0), ctx.values(1))}; };
    t["Pad"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        std::string mode = ctx.attr_string("mode", "constant");
        PadMode m = mode == "reflect" ? PadMode::Reflect
                    : mode == "edge"  ? PadMode::Edge
                                      : PadMode::Constant;
        if (mode != "constant" && mode != "reflect" && mode != "edge")
            ctx.fail("mode \"" + mode + "\" is not supported (constant, reflect, edge are).");
        std::vector<Expr> pads;
        Expr value;
        if (ctx.opset() < 11) {
            pads = to_exprs(ctx.attr_ints("pads"));
            value = Expr(static_cast<float>(ctx.attr_float("value", 0.0)));
        } else {
            pads = ctx.values(1);
            if (ctx.has_input(2)) value = scalar_of(ctx.input(2));
        }
        const int r = x.rank();
        std::vector<int64_t> axes;
        if (ctx.has_input(3))
            axes = ctx.constant_values(3, "axes");
        else {
            for (int i = 0; i < r; i++)
                axes.push_back(i);
        }
        if (pads.size() != 2 * axes.size()) ctx.fail("pads must hold two values per padded axis.");
        std::vector<Expr> before(static_cast<size_t>(r), make_const(Int(64), 0)), after = before;
        for (size_t k = 0; k < axes.size(); k++) {
            int a = normalize_axis(static_cast<int>(axes[k]), r, "Pad");
            before[static_cast<size_t>(a)] = pads[k];
            after[static_cast<size_t>(a)] = pads[k + axes.size()];
        }
        return Outputs{nn::pad(x, before, after, m, value)};
    };
    t["DepthToSpace"] = [](BuildContext &ctx) {
        std::string mode = ctx.attr_string("mode", "DCR");
        return Outputs{nn::depth_to_space(
            ctx.input(0), static_cast<int>(ctx.attr_int("blocksize", 1)), mode == "CRD")};
    };
    t["SpaceToDepth"] = [](BuildContext &ctx) {
        return Outputs{
            nn::space_to_depth(ctx.input(0), static_cast<int>(ctx.attr_int("blocksize", 1)))};
    };
    t["Trilu"] = [](BuildContext &ctx) {
        Expr k = ctx.has_input(1) ? scalar_of(ctx.input(1)) : make_const(Int(64), 0);
        return Outputs{nn::trilu(ctx.input(0), k, ctx.attr_int("upper", 1) != 0)};
    };
    t["EyeLike"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        return Outputs{nn::eye_like(x.shape(), ctx.attr_type("dtype", x.type()),
                                    static_cast<int>(ctx.attr_int("k", 0)))};
    };
    t["OneHot"] = [](BuildContext &ctx) {
        std::vector<Expr> depth = ctx.values(1);
        if (depth.size() != 1) ctx.fail("depth must hold one value.");
        return Outputs{nn::one_hot(ctx.input(0), depth[0], ctx.input(2),
                                   static_cast<int>(ctx.attr_int("axis", -1)))};
    };
    t["Range"] = [](BuildContext &ctx) {
        Type type = ctx.input(0).type();
        std::vector<Expr> s = ctx.values(0), l = ctx.values(1), d = ctx.values(2);
        if (s.size() != 1 || l.size() != 1 || d.size() != 1)
            ctx.fail("start, limit and delta must be scalars.");
        return Outputs{nn::range(s[0], l[0], d[0], type)};
    };
    t["Shape"] = [](BuildContext &ctx) {
        int start = static_cast<int>(ctx.attr_int("start", 0));
        int end = static_cast<int>(ctx.attr_int("end", INT32_MAX));
        Shape s = ctx.graph_shape(0);
        std::vector<int64_t> known;
        for (const Expr &e : s) {
            int64_t v = 0;
            if (!is_const(e, &v)) break;
            known.push_back(v);
        }
        const int r = static_cast<int>(s.size());
        if (static_cast<int>(known.size()) == r) {
            auto norm = [r](int v) { return std::clamp(v < 0 ? v + r : v, 0, r); };
            int s0 = norm(start), s1 = std::max(norm(end), s0);
            return Outputs{int64_constant(
                std::vector<int64_t>(known.begin() + s0, known.begin() + s1), false)};
        }
        return Outputs{nn::shape_of(ctx.input(0), start, end)};
    };
    t["Size"] = [](BuildContext &ctx) {
        int64_t n = 1;
        bool all = true;
        for (const Expr &e : ctx.graph_shape(0)) {
            int64_t v = 0;
            if (!is_const(e, &v)) all = false;
            n *= v;
        }
        if (all) return Outputs{int64_constant({n}, true)};
        return Outputs{nn::size_of(ctx.input(0))};
    };
    t["ConstantOfShape"] = [](BuildContext &ctx) {
        Expr value = make_const(Float(32), 0.0);
        if (ctx.has_attr("value")) {
            Buffer<> v = ctx.attr_tensor("value");
            if (v.number_of_elements() != 1) ctx.fail("value must hold one element.");
            value =
                Tensor(v, unique_name("fill_value"))(Index(static_cast<size_t>(v.dimensions()), 0));
        }
        return Outputs{nn::full(ctx.values(0), value)};
    };
    auto window = [](WindowFunction kind) {
        return [kind](BuildContext &ctx) {
            std::vector<Expr> size = ctx.values(0);
            if (size.size() != 1) ctx.fail("size must be a scalar.");
            return Outputs{nn::window_function(kind, size[0],
                                               ctx.attr_type("output_datatype", Float(32)),
                                               ctx.attr_int("periodic", 1) != 0)};
        };
    };
    t["HannWindow"] = window(WindowFunction::Hann);
    t["HammingWindow"] = window(WindowFunction::Hamming);
    t["BlackmanWindow"] = window(WindowFunction::Blackman);
    t["Einsum"] = [](BuildContext &ctx) {
        std::vector<Tensor> xs;
        for (int i = 0; i < ctx.inputs(); i++)
            xs.push_back(ctx.input(i));
        return Outputs{nn::einsum(ctx.attr_string("equation", ""), xs)};
    };
    t["CumSum"] = [](BuildContext &ctx) {
        std::vector<int64_t> axis = ctx.constant_values(1, "axis");
        if (axis.size() != 1) ctx.fail("axis must be a scalar.");
        int64_t a = axis[0];
        return Outputs{nn::cumsum(ctx.input(0), static_cast<int>(a),
                                  ctx.attr_int("exclusive", 0) != 0,
                                  ctx.attr_int("reverse", 0) != 0)};
    };
}

}  // namespace dsl::nn::graph
