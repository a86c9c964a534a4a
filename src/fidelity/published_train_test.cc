// Published training steps (published_train.h): the README's own figures
// agree with the case the planner prices, and the check prices its
// configuration.
#include "fidelity/published_train.h"

#include <gtest/gtest.h>

#include "hw/topology.h"

namespace az::fidelity {
namespace {

// MaxDiffusion's README run: 135.894 TFLOP/s per device on 4 devices for
// 36.008 s is 135.894e12 x 4 x 36.008 = 19.573e15 FLOPs per step. Wan 2.1
// 14B at 720p, 81 frames (75,600 tokens, reference/models.md §1.4-1.5) has
// F_fwd = 6,523,288,813,568,000 FLOPs; a training step of one sample is the
// forward and a backward of twice its FLOPs: 3 x F_fwd = 19.570e15. The two
// agree within 0.02%, so the run is the case the planner prices (720x1280
// has the tokens of 1280x720). The priced step counts what its kernels run:
// flash attention's backward recomputes QK^T, 5 of the forward's 2 matmuls'
// worth (2.5x), the rest of the backward 2x. Attention is A = 4 L^2 d N_L
// (self, 4,682,022,912,000,000) + 4 L T d N_L (cross, T = 512,
// 31,708,938,240,000) = 4,713,731,850,240,000 = 72.26% of F_fwd, so the
// step is F_fwd + 2 (F_fwd - A) + 2.5 A = (3 + 0.5 x 0.7226) F_fwd =
// 1.1204 x 3 F_fwd (the loss and the embeddings' einsums under 0.1%). No
// prediction beats the chips' peak: 3 F_fwd / (4 x 459e12) = 10.66 s.
TEST(PublishedTrain, TheReadmeRunIsTheCasePriced) {
  const std::vector<PublishedTrainStep>& points = PublishedTrainSteps();
  ASSERT_EQ(points.size(), 1u);
  const PublishedTrainStep& readme = points[0];
  const double forward = 6523288813568000.0;
  const double source_flops = readme.tflops_per_device * 1e12 * 4 * readme.seconds;
  EXPECT_NEAR(source_flops / (3 * forward), 1.0, 2e-4);

  std::vector<TrainStepCheck> checks = CheckPublishedTrainSteps(2);
  ASSERT_EQ(checks.size(), 1u);
  const TrainStepCheck& c = checks[0];
  ASSERT_TRUE(c.status.ok()) << c.status.ToString();
  const double attention = 4682022912000000.0 + 31708938240000.0;
  EXPECT_NEAR(c.model_flops / (3 * forward + 0.5 * attention), 1.0, 1e-3);
  EXPECT_GT(c.predicted_s, 3 * forward / (4 * 459e12));
  const std::string page = PublishedTrainMarkdown(checks);
  EXPECT_NE(page.find("| wan2.1-t2v-14b | 720x1280x81 | 1 | v5p:2x2x1 | context=4,fsdp=4,remat=offload | 36.01 |"),
            std::string::npos)
      << page;
}

}  // namespace
}  // namespace az::fidelity
