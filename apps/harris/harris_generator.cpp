// The Harris corner response as a generator, for dsl_add_library: `scheduled=false` keeps the
// default schedule.
#include "dsl/Generator.h"
#include "harris.h"

namespace {

using namespace dsl;

class HarrisGenerator : public Generator<HarrisGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        pipeline_ = dsl_apps::make_harris(input);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_harris(pipeline_, get_target());
    }

  private:
    dsl_apps::HarrisPipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(HarrisGenerator, harris)
