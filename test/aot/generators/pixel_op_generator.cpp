// A pointwise operation chosen by an enum GeneratorParam, on an input whose element type is a
// GeneratorParam too (input.type), with a scalar Input of limited range.
#include "dsl/Generator.h"
#include "dsl/dsl.h"

using namespace dsl;

namespace {

enum class Operation { Add, Multiply, Maximum };

class PixelOp : public Generator<PixelOp> {
  public:
    GeneratorParam<Operation> op{
        "op",
        Operation::Add,
        {{"add", Operation::Add}, {"mul", Operation::Multiply}, {"max", Operation::Maximum}}};
    GeneratorParam<float> bias{"bias", 0.0f, -100.0f, 100.0f};
    Input<Buffer<>> input{"input", 2};
    Input<float> gain{"gain", 1.0f, 0.0f, 10.0f};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Expr v = cast<float>(input(x, y));
        Expr result;
        switch (op.value()) {
            case Operation::Add:
                result = v + gain;
                break;
            case Operation::Multiply:
                result = v * gain;
                break;
            case Operation::Maximum:
                result = max(v, gain);
                break;
        }
        output(x, y) = result + bias.value();
    }

    void schedule() { output.vectorize(x, get_target().natural_vector_size<float>()); }

  private:
    Var x{"x"}, y{"y"};
};

}  // namespace

DSL_REGISTER_GENERATOR(PixelOp, pixel_op)
