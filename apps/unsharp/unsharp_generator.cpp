// The unsharp mask as a generator, for dsl_add_library: `scheduled=false` keeps the default
// schedule. The strength `amount` is an argument of the compiled function.
#include "dsl/Generator.h"
#include "unsharp.h"

namespace {

using namespace dsl;

class UnsharpGenerator : public Generator<UnsharpGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<float>> input{"input", 3};
    Input<float> amount{"amount", 1.5f, 0.0f, 10.0f};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        pipeline_ = dsl_apps::make_unsharp(input, amount);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_unsharp(pipeline_, get_target());
    }

  private:
    dsl_apps::UnsharpPipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(UnsharpGenerator, unsharp)
