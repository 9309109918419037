// ONNX's elementwise operators: unary math, activations, broadcasting binary operators,
// comparisons, logic, Where, Cast, Clip, and the pass-throughs (Identity, Dropout in inference).
#include "dsl/nn/Elementwise.h"
#include "ir/IROperator.h"
#include "nn/graph/OpBuilder.h"

namespace dsl::nn::graph {

namespace {

using Unary = Tensor (*)(const Tensor &);
using Binary = Tensor (*)(const Tensor &, const Tensor &);

Builder unary(Unary f) {
    return [f](BuildContext &ctx) { return std::vector<Tensor>{f(ctx.input(0))}; };
}

Builder binary(Binary f) {
    return [f](BuildContext &ctx) { return std::vector<Tensor>{f(ctx.input(0), ctx.input(1))}; };
}

Builder variadic(Tensor (*f)(const std::vector<Tensor> &)) {
    return [f](BuildContext &ctx) {
        std::vector<Tensor> xs;
        for (int i = 0; i < ctx.inputs(); i++) {
            if (ctx.has_input(i)) xs.push_back(ctx.input(i));
        }
        if (xs.empty()) ctx.fail("needs at least one input.");
        return std::vector<Tensor>{f(xs)};
    };
}

}  // namespace

void add_elementwise_builders(std::map<std::string, Builder> &t) {
    t["Abs"] = unary(nn::abs);
    t["Neg"] = unary(nn::neg);
    t["Sign"] = unary(nn::sign);
    t["Reciprocal"] = unary(nn::reciprocal);
    t["Floor"] = unary(nn::floor);
    t["Ceil"] = unary(nn::ceil);
    t["Round"] = unary(nn::round);
    t["Sqrt"] = unary(nn::sqrt);
    t["Exp"] = unary(nn::exp);
    t["Log"] = unary(nn::log);
    t["Sin"] = unary(nn::sin);
    t["Cos"] = unary(nn::cos);
    t["Tan"] = unary(nn::tan);
    t["Asin"] = unary(nn::asin);
    t["Acos"] = unary(nn::acos);
    t["Atan"] = unary(nn::atan);
    t["Sinh"] = unary(nn::sinh);
    t["Cosh"] = unary(nn::cosh);
    t["Tanh"] = unary(nn::tanh);
    t["Asinh"] = unary(nn::asinh);
    t["Acosh"] = unary(nn::acosh);
    t["Atanh"] = unary(nn::atanh);
    t["Erf"] = unary(nn::erf);
    t["Relu"] = unary(nn::relu);
    t["Sigmoid"] = unary(nn::sigmoid);
    t["Softplus"] = unary(nn::softplus);
    t["Softsign"] = unary(nn::softsign);
    t["HardSwish"] = unary(nn::hard_swish);
    t["Not"] = unary(nn::logical_not);
    t["BitwiseNot"] = unary(nn::bitwise_not);
    t["IsNaN"] = unary(nn::is_nan);
    t["IsInf"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{nn::is_inf(ctx.input(0), ctx.attr_int("detect_positive", 1) != 0,
                                              ctx.attr_int("detect_negative", 1) != 0)};
    };
    t["LeakyRelu"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{
            nn::leaky_relu(ctx.input(0), static_cast<float>(ctx.attr_float("alpha", 0.01)))};
    };
    t["Elu"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{
            nn::elu(ctx.input(0), static_cast<float>(ctx.attr_float("alpha", 1.0)))};
    };
    t["Selu"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{nn::selu(
            ctx.input(0), static_cast<float>(ctx.attr_float("alpha", 1.67326319217681884765625)),
            static_cast<float>(ctx.attr_float("gamma", 1.05070102214813232421875)))};
    };
    t["Celu"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{
            nn::celu(ctx.input(0), static_cast<float>(ctx.attr_float("alpha", 1.0)))};
    };
    t["HardSigmoid"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{
            nn::hard_sigmoid(ctx.input(0), static_cast<float>(ctx.attr_float("alpha", 0.2)),
                             static_cast<float>(ctx.attr_float("beta", 0.5)))};
    };
    t["ThresholdedRelu"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{
            nn::thresholded_relu(ctx.input(0), static_cast<float>(ctx.attr_float("alpha", 1.0)))};
    };
    t["Shrink"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{nn::shrink(ctx.input(0),
                                              static_cast<float>(ctx.attr_float("bias", 0.0)),
                                              static_cast<float>(ctx.attr_float("lambd", 0.5)))};
    };
    t["Gelu"] = [](BuildContext &ctx) {
        std::string approximate = ctx.attr_string("approximate", "none");
        if (approximate != "none" && approximate != "tanh")
            ctx.fail("attribute approximate=\"" + approximate + "\" is not \"none\" or \"tanh\".");
        return std::vector<Tensor>{nn::gelu(ctx.input(0), approximate == "tanh")};
    };
    t["Clip"] = [](BuildContext &ctx) {
        Expr lo, hi;
        if (ctx.opset() < 11) {
            if (ctx.has_attr("min")) lo = Expr(static_cast<float>(ctx.attr_float("min", 0)));
            if (ctx.has_attr("max")) hi = Expr(static_cast<float>(ctx.attr_float("max", 0)));
        } else {
            if (ctx.has_input(1)) lo = scalar_of(ctx.input(1));
            if (ctx.has_input(2)) hi = scalar_of(ctx.input(2));
        }
        return std::vector<Tensor>{nn::clip(ctx.input(0), lo, hi)};
    };

    t["Add"] = binary(nn::add);
    t["Sub"] = binary(nn::sub);
    t["Mul"] = binary(nn::mul);
    t["Div"] = binary(nn::div);
    t["Pow"] = [](BuildContext &ctx) {
        // A float squared by a constant exponent of 2 (the layer norms exporters write as
        // Pow(x - mean, 2)) is x * x, exactly what pow gives, without a call per element.
        Tensor x = ctx.input(0);
        Buffer<> e = ctx.constant(1);
        if (x.type().is_float() && e.defined() && e.number_of_elements() == 1 &&
            e.dimensions() <= x.rank()) {
            const Expr v = ctx.values(1)[0];
            std::optional<double> p = ir::as_const_float(v);
            if (auto i = ir::as_const_int(v)) p = static_cast<double>(*i);
            if (p && *p == 2.0) return std::vector<Tensor>{nn::mul(x, x)};
        }
        return std::vector<Tensor>{nn::pow(x, ctx.input(1))};
    };
    t["PRelu"] = binary(nn::prelu);
    t["Equal"] = binary(nn::equal);
    t["Less"] = binary(nn::less);
    t["LessOrEqual"] = binary(nn::less_equal);
    t["Greater"] = binary(nn::greater);
    t["GreaterOrEqual"] = binary(nn::greater_equal);
    t["And"] = binary(nn::logical_and);
    t["Or"] = binary(nn::logical_or);
    t["Xor"] = binary(nn::logical_xor);
    t["BitwiseAnd"] = binary(nn::bitwise_and);
    t["BitwiseOr"] = binary(nn::bitwise_or);
    t["BitwiseXor"] = binary(nn::bitwise_xor);
    t["Mod"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{
            nn::mod(ctx.input(0), ctx.input(1), ctx.attr_int("fmod", 0) != 0)};
    };
    t["BitShift"] = [](BuildContext &ctx) {
        std::string direction = ctx.attr_string("direction", "");
        if (direction != "LEFT" && direction != "RIGHT")
            ctx.fail("attribute direction must be \"LEFT\" or \"RIGHT\".");
        return std::vector<Tensor>{nn::bit_shift(ctx.input(0), ctx.input(1), direction == "LEFT")};
    };
    t["Max"] = variadic(nn::max);
    t["Min"] = variadic(nn::min);
    t["Sum"] = variadic(nn::sum);
    t["Mean"] = variadic(nn::mean);
    t["Where"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{nn::where(ctx.input(0), ctx.input(1), ctx.input(2))};
    };
    t["Cast"] = [](BuildContext &ctx) {
        if (!ctx.has_attr("to")) ctx.fail("needs the attribute \"to\" (the type to cast to).");
        return std::vector<Tensor>{nn::cast(ctx.input(0), ctx.attr_type("to", Float(32)))};
    };
    t["CastLike"] = [](BuildContext &ctx) {
        return std::vector<Tensor>{nn::cast(ctx.input(0), ctx.input(1).type())};
    };
    t["Identity"] = [](BuildContext &ctx) {
        Tensor x = ctx.input(0);
        return std::vector<Tensor>{nn::map(
            x, [](const Expr &e) { return e; }, "identity")};
    };
    // Inference: the data passes through; the optional mask is all true.
    t["Dropout"] = [](BuildContext &ctx) {
        // Training mode drops random elements: refused rather than computed differently.
        bool training = ctx.attr_int("is_test", 1) == 0 && ctx.opset() < 7;
        if (ctx.has_input(2)) {
            Buffer<> mode = ctx.constant(2);
            if (!mode.defined()) {
                ctx.fail(
                    "training_mode is an input of the model; dsl runs Dropout in inference "
                    "only, so it must be a constant false.");
            }
            training = *static_cast<const uint8_t *>(mode.data()) != 0;
        }
        if (training)
            ctx.fail("training mode (random dropping) is not supported; dsl runs inference.");
        Tensor x = ctx.input(0);
        std::vector<Tensor> out{nn::map(
            x, [](const Expr &e) { return e; }, "dropout")};
        if (ctx.node().outputs.size() > 1) {
            out.push_back(nn::map(
                x, [](const Expr &) { return ir::make_bool(true); }, "dropout_mask"));
        }
        return out;
    };
}

}  // namespace dsl::nn::graph
