// A generator: adds a build-time constant to every pixel, saturating.
#include "dsl/dsl.h"

using namespace dsl;

class Brighten : public Generator<Brighten> {
  public:
    GeneratorParam<int> amount{"amount", 1, 0, 100};
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        output(x, y) = cast<uint8_t>(min(cast<int>(input(x, y)) + amount.value(), 255));
    }
    void schedule() { output.vectorize(Var("x"), 16); }
};

DSL_REGISTER_GENERATOR(Brighten, brighten)
