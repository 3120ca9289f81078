// Scoring a pair corpus with one or two systems (see pairscoring.h).
#include "ui/pairscoring.h"

#include <chrono>
#include <utility>

#include <QFileInfo>

#include "core/encoders/common/encodercache.h"
#include "core/encoders/encoder.h"
#include "core/model/trainingdata.h"

namespace treelens {

namespace {

/// The scores of one system; a note goes to `dataNotes` when the model was trained or
/// chosen on this corpus.
Result<PairSystem> scoreSystem(EncoderCache &encoders, const PairCorpus &corpus, const QString &path,
                               const std::string &corpusPath, const RunControl &control,
                               std::vector<std::string> &dataNotes)
{
    if (path == kIdfSystem)
        return idfBaselineSystem(corpus, corpus);
    DeviceConfig dc;
    auto enc = encoders.get(path.toStdString(), dc);
    if (!enc)
        return enc.error();
    // A corpus the model was trained or chosen on: every figure of it says so.
    if (const DataUse use = corpusUseByModel((*enc)->info().configJson, path.toStdString(), corpusPath); !use.note.empty())
        dataNotes.push_back(use.note);
    if (!(*enc)->info().pairInput) {
        // A single-sentence encoder cannot score pairs: the list is ranked by the
        // baseline and the pair view shows the encoder's analysis of each side.
        PairSystem s = idfBaselineSystem(corpus, corpus);
        s.name = std::string(kIdfBaselineName) + " (" + QFileInfo(path).completeBaseName().toStdString() +
                 " reads single sentences: shown on both sides)";
        return s;
    }
    auto s = scorePairCorpus(**enc, corpus, &control, 128);
    if (s)
        s->name = QFileInfo(path).completeBaseName().toStdString();
    return s;
}

} // namespace

Result<PairScores> scorePairSystems(EncoderCache &encoders, const PairCorpus &corpus, const QString &a, const QString &b,
                                    const std::string &corpusPath, const RunControl &control)
{
    const auto t0 = std::chrono::steady_clock::now();
    PairScores out;
    auto sa = scoreSystem(encoders, corpus, a, corpusPath, control, out.dataNotes);
    if (!sa)
        return sa.error();
    out.a = std::move(*sa);
    if (!b.isEmpty()) {
        auto sb = scoreSystem(encoders, corpus, b, corpusPath, control, out.dataNotes);
        if (!sb)
            return sb.error();
        out.b = std::move(*sb);
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace treelens
