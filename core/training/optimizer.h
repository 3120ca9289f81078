#pragma once
/// \file optimizer.h
/// The optimisers the papers need (Adam, AdamW, Adagrad, RMSProp), written out
/// so that their state goes into and comes back from TreeLens checkpoints by
/// parameter name ("optim.<slot>.<parameter>", f32) and a resumed run continues
/// bit for bit. Internal to core (LibTorch types).

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "core/base/result.h"
#include "core/model/tensordata.h"
#include "core/training/recipe.h"

namespace treelens::training {

using NamedParameters = std::vector<std::pair<std::string, torch::Tensor>>;

class Optimizer {
public:
    /// Zero state for every parameter (they must require gradients).
    static Result<std::unique_ptr<Optimizer>> create(const OptimizerConfig &config, NamedParameters parameters);

    /// Clears the gradients of every parameter.
    void zeroGrad();
    /// Clips the gradient norm (config.clipNorm > 0) and updates the parameters
    /// with learning rate `lr`. Parameters without a gradient are left alone.
    void step(double lr);
    long steps() const { return m_steps; }

    /// Adds the state to `out` ("optim.<slot>.<name>").
    void saveState(TensorMap &out) const;
    /// Restores a state saved by saveState (every slot of every parameter must be
    /// there with the parameter's shape); errors name `where` and the tensor.
    Status loadState(const TensorMap &in, long steps, const std::string &where);

private:
    Optimizer(OptimizerConfig config, NamedParameters parameters);
    std::vector<std::string> slots() const;

    OptimizerConfig m_config;
    NamedParameters m_params;
    std::map<std::string, std::vector<torch::Tensor>> m_state; ///< parameter -> one tensor per slot
    long m_steps = 0;
};

} // namespace treelens::training
