// A (2 radius + 1)^2 box blur of a uint16 image with its edges repeated, as a generator:
// GeneratorParams for the radius and the parallel schedule, and the target's vector width; a
// GPU schedule for targets with a GPU API; estimates for the autoscheduler (autoscheduler=dsl).
#include "dsl/Generator.h"
#include "dsl/dsl.h"

using namespace dsl;

namespace {

class BoxBlur : public Generator<BoxBlur> {
  public:
    GeneratorParam<int> radius{"radius", 1, 1, 8};
    GeneratorParam<bool> parallel_rows{"parallel_rows", true};
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        const int r = radius;
        Expr row_sum = cast<uint32_t>(clamped(x - r, y));
        for (int d = -r + 1; d <= r; d++)
            row_sum = row_sum + cast<uint32_t>(clamped(x + d, y));
        blur_x(x, y) = row_sum;
        Expr sum = blur_x(x, y - r);
        for (int d = -r + 1; d <= r; d++)
            sum = sum + blur_x(x, y + d);
        const int n = (2 * r + 1) * (2 * r + 1);
        output(x, y) = cast<uint16_t>(sum / n);
    }

    void schedule() {
        if (using_autoscheduler()) {
            // autoscheduler=dsl: the sizes to plan for; the autoscheduler does the rest.
            input.set_estimates({{0, 1920}, {0, 1080}});
            output.set_estimates({{0, 1920}, {0, 1080}});
            return;
        }
        if (get_target().has_gpu_feature()) {
            // Blocks of 16 x 16 outputs; each block's rows in shared memory.
            Var bx("bx"), by("by"), tx("tx"), ty("ty");
            output.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
            blur_x.compute_at(output, bx).gpu_threads(x, y);
            return;
        }
        const int lanes = get_target().natural_vector_size<uint16_t>();
        output.vectorize(x, lanes);
        if (parallel_rows) output.parallel(y);
        blur_x.compute_at(output, y).vectorize(x, lanes);
    }

  private:
    Var x{"x"}, y{"y"};
    Func blur_x{"blur_x"};
};

}  // namespace

DSL_REGISTER_GENERATOR(BoxBlur, box_blur)
