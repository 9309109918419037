// A generator written as Halide's are: Buffer<T, Dims> members without a dimension count,
// two Outputs, an Output whose element type is the GeneratorParam "scaled.type", and
// HALIDE_REGISTER_GENERATOR. The compiled function takes the Inputs, then both outputs.
#include "dsl/Generator.h"
#include "dsl/dsl.h"

using namespace dsl;

namespace {

class TwoOutputs : public Generator<TwoOutputs> {
  public:
    Input<Buffer<uint8_t, 2>> input{"input"};
    Input<float> factor{"factor"};
    Output<Buffer<void, 2>> scaled{"scaled"};
    Output<Buffer<int32_t, 1>> row_sums{"row_sums"};

    void generate() {
        scaled(x, y) = cast(scaled.type(), input(x, y) * factor);
        RDom r(0, input.width());
        row_sums(y) = sum(cast<int32_t>(input(r, y)));
    }

    void schedule() {
        scaled.vectorize(x, natural_vector_size(scaled.type()));
        row_sums.compute_root();
    }

  private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(TwoOutputs, two_outputs)
