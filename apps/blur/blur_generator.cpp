// The blur as a generator, for dsl_add_library: `scheduled=false` keeps the default schedule.
#include "blur.h"
#include "dsl/Generator.h"

namespace {

using namespace dsl;

class BlurGenerator : public Generator<BlurGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        pipeline_ = dsl_apps::make_blur(input);
        output = pipeline_.blur_y;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_blur(pipeline_, get_target());
    }

  private:
    dsl_apps::BlurPipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(BlurGenerator, blur)
