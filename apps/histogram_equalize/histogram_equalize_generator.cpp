// Histogram equalisation as a generator, for dsl_add_library: `scheduled=false` keeps the
// default schedule.
#include "dsl/Generator.h"
#include "histogram_equalize.h"

namespace {

using namespace dsl;

class HistogramEqualizeGenerator : public Generator<HistogramEqualizeGenerator> {
  public:
    GeneratorParam<bool> scheduled{"scheduled", true};
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        pipeline_ = dsl_apps::make_histogram_equalize(input);
        output = pipeline_.output;
    }
    void schedule() {
        if (scheduled) dsl_apps::schedule_histogram_equalize(pipeline_, get_target());
    }

  private:
    dsl_apps::HistogramEqualizePipeline pipeline_;
};

}  // namespace

DSL_REGISTER_GENERATOR(HistogramEqualizeGenerator, histogram_equalize)
