#pragma once
/// \file analysisdelta.h
/// What changed between two analyses of the same words (issue 33, "what if the
/// tree were different?"): the analysis before a tree edit and after it. The
/// prediction's change, per layer and head the largest and mean absolute change of
/// the attention and of the Dependency-Transformer's relation gate (signed at the
/// largest), and for recursive models the nodes of both trees matched by their
/// word span. Plain C++ (no torch, no Qt); `treelens-cli whatif` writes it and the
/// app's comparison draws it.

#include <string>
#include <vector>

#include "core/data/analysis.h"

namespace treelens {

/// One layer/head's change of a tokens × tokens matrix, after − before.
struct HeadDelta {
    int layer = 0;
    int head = 0;
    double maxAbs = 0.0;   ///< the largest |after − before|
    double meanAbs = 0.0;  ///< the mean |after − before| over the cells
    int row = -1;          ///< token indices of the largest change (-1: none)
    int col = -1;
    double change = 0.0;   ///< after − before at (row, col), signed
};

/// A node of a recursive model's tree before or after the edit, matched by its
/// span and (dependency trees) its head word.
struct NodeDelta {
    int start = 0, end = 0;     ///< word span [start, end)
    int headWord = -1;          ///< dependency trees: the word whose subtree it is
    std::string label;          ///< after's label (before's when the node went away)
    bool before = false;        ///< the span is a node before the edit
    bool after = false;         ///< ... and after it
    double normBefore = 0.0;    ///< the node state's L2 norm (0 where absent)
    double normAfter = 0.0;
};

struct AnalysisDelta {
    bool hasPrediction = false;          ///< both analyses have a prediction
    std::string labelBefore, labelAfter;
    std::vector<std::string> labels;
    std::vector<double> probabilityChange; ///< after − before, per label
    double scoreBefore = 0.0, scoreAfter = 0.0;
    /// Per layer and head, where both analyses have a matrix of one shape.
    std::vector<HeadDelta> attention;
    std::vector<HeadDelta> gates;
    /// Recursive models: every node before or after, in span order.
    std::vector<NodeDelta> nodes;

    /// The largest |change| of the attention over every layer and head (0 without).
    double largestAttentionChange() const;
    /// Whether anything the model computed moved by more than `tolerance`.
    bool changed(double tolerance = 1e-6) const;
};

/// Compares `before` and `after`, analyses of the same words (token counts may
/// differ only where a family's tokens are tree nodes; such matrices are skipped).
AnalysisDelta compareAnalyses(const Analysis &before, const Analysis &after);

/// after − before cell by cell (an empty matrix when the shapes differ).
Matrix matrixDifference(const Matrix &before, const Matrix &after);

} // namespace treelens
