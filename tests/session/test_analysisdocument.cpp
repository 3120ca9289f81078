// AnalysisDocument: the selection (layer, head, ×C, focus word, threshold) lives
// in the document, stays within the analysis' shape, and every change says what
// changed in one notification.
#include <gtest/gtest.h>

#include "ui/session/analysisdocument.h"

using namespace treelens;

namespace {

std::shared_ptr<const Sentence> sentence(const std::string &id, int words)
{
    auto s = std::make_shared<Sentence>();
    s->id = id;
    for (int i = 0; i < words; ++i) {
        Token t;
        t.text = "w" + std::to_string(i);
        s->tokens.push_back(t);
    }
    return s;
}

std::shared_ptr<const Analysis> analysis(int words, int layers, int heads)
{
    auto a = std::make_shared<Analysis>();
    for (int i = 0; i < words; ++i)
        a->words.push_back("w" + std::to_string(i));
    a->layers = layers;
    a->heads = heads;
    return a;
}

/// Records every changed() notification.
struct Recorder {
    explicit Recorder(AnalysisDocument &doc)
    {
        QObject::connect(&doc, &AnalysisDocument::changed, [this](AnalysisDocument::Changes c) { changes.push_back(c); });
    }
    std::vector<AnalysisDocument::Changes> changes;
};

} // namespace

TEST(AnalysisDocument, SelectionStaysWithinTheAnalysisShape)
{
    AnalysisDocument doc;
    EXPECT_EQ(doc.selection(), ViewState());
    doc.setResult(sentence("a", 5), analysis(5, 6, 8));
    ViewState s;
    s.layer = 3;
    s.head = 7;
    s.focusWord = 4;
    s.weightedAttention = false;
    s.threshold = 0.234;
    doc.setSelection(s);
    EXPECT_EQ(doc.selection().layer, 3);
    EXPECT_EQ(doc.selection().head, 7);
    EXPECT_EQ(doc.selection().focusWord, 4);
    EXPECT_FALSE(doc.selection().weightedAttention);
    EXPECT_DOUBLE_EQ(doc.selection().threshold, 0.23); // the View dock's steps of 0.01

    // Out of range: clamped to the last layer/head/word, the threshold to [0, 1].
    s.layer = 99;
    s.head = -4;
    s.focusWord = 12;
    s.threshold = 1.7;
    doc.setSelection(s);
    EXPECT_EQ(doc.selection().layer, 5);
    EXPECT_EQ(doc.selection().head, 0);
    EXPECT_EQ(doc.selection().focusWord, 4);
    EXPECT_DOUBLE_EQ(doc.selection().threshold, 1.0);

    // A smaller analysis of a shorter sentence: layer/head clamped, the focus word
    // dropped (that word is gone), ×C and threshold kept.
    s.layer = 5;
    s.head = 7;
    s.focusWord = 4;
    s.threshold = 0.3;
    doc.setSelection(s);
    doc.setResult(sentence("b", 3), analysis(3, 2, 4));
    EXPECT_EQ(doc.selection().layer, 1);
    EXPECT_EQ(doc.selection().head, 3);
    EXPECT_EQ(doc.selection().focusWord, -1);
    EXPECT_FALSE(doc.selection().weightedAttention);
    EXPECT_DOUBLE_EQ(doc.selection().threshold, 0.3);

    // No analysis (no model): layer and head 0.
    doc.setResult(sentence("c", 3), nullptr, QStringLiteral("no model"));
    EXPECT_EQ(doc.selection().layer, 0);
    EXPECT_EQ(doc.selection().head, 0);
    // An analysis of other words has no shape either (it is not shown).
    doc.setResult(sentence("d", 3), analysis(4, 6, 8));
    EXPECT_FALSE(doc.analysisFits());
    s = doc.selection();
    s.layer = 3;
    doc.setSelection(s);
    EXPECT_EQ(doc.selection().layer, 0);
}

TEST(AnalysisDocument, OneNotificationSaysWhatChanged)
{
    AnalysisDocument doc;
    doc.setResult(sentence("a", 5), analysis(5, 6, 8));
    Recorder rec(doc);

    ViewState s = doc.selection();
    s.head = 2;
    doc.setSelection(s);
    ASSERT_EQ(rec.changes.size(), 1u);
    EXPECT_EQ(rec.changes[0], AnalysisDocument::Changes(AnalysisDocument::SelectionChanged));
    doc.setSelection(s); // the same selection: nothing changed
    doc.setSelection(ViewState{0, 2, true, -1, 0.1004}); // rounds to the current one
    EXPECT_EQ(rec.changes.size(), 1u);

    // A result that keeps the selection: no SelectionChanged.
    doc.setResult(sentence("b", 5), analysis(5, 6, 8));
    ASSERT_EQ(rec.changes.size(), 2u);
    EXPECT_TRUE(rec.changes[1] & AnalysisDocument::SentenceChanged);
    EXPECT_TRUE(rec.changes[1] & AnalysisDocument::AnalysisChanged);
    EXPECT_FALSE(rec.changes[1] & AnalysisDocument::SelectionChanged);
    // One that clamps it: sentence, analysis and selection in the same notification.
    doc.setResult(sentence("c", 5), analysis(5, 6, 2));
    ASSERT_EQ(rec.changes.size(), 3u);
    EXPECT_TRUE(rec.changes[2] & AnalysisDocument::SentenceChanged);
    EXPECT_TRUE(rec.changes[2] & AnalysisDocument::SelectionChanged);
    EXPECT_EQ(doc.selection().head, 1);
    // Busy and errors leave the selection alone.
    doc.setBusy(true);
    doc.setError(QStringLiteral("failed"));
    ASSERT_EQ(rec.changes.size(), 5u);
    EXPECT_EQ(rec.changes[3], AnalysisDocument::Changes(AnalysisDocument::BusyChanged));
    EXPECT_EQ(rec.changes[4], AnalysisDocument::Changes(AnalysisDocument::ErrorChanged));
}

TEST(AnalysisDocument, PendingSelectionWaitsForItsSentencesAnalysis)
{
    AnalysisDocument doc;
    doc.setResult(sentence("first", 4), analysis(4, 1, 1)); // one layer, one head: nothing fits yet
    doc.setPendingSelection("probed", 4, 5);
    ViewState s = doc.selection();
    s.layer = 4;
    s.head = 5;
    doc.setSelection(s);
    EXPECT_EQ(doc.selection().layer, 0); // the shape does not allow it yet

    doc.setResult(sentence("other", 4), analysis(4, 6, 8)); // another sentence: not applied
    EXPECT_EQ(doc.selection().layer, 0);
    doc.setResult(sentence("probed", 4), nullptr); // no analysis yet: still pending
    EXPECT_EQ(doc.selection().layer, 0);

    Recorder rec(doc);
    doc.setResult(sentence("probed", 4), analysis(4, 6, 8));
    EXPECT_EQ(doc.selection().layer, 4);
    EXPECT_EQ(doc.selection().head, 5);
    ASSERT_EQ(rec.changes.size(), 1u); // with the result, not after it
    EXPECT_TRUE(rec.changes[0] & AnalysisDocument::SelectionChanged);

    // Applied once only.
    s = doc.selection();
    s.layer = 1;
    doc.setSelection(s);
    doc.setResult(sentence("probed", 4), analysis(4, 6, 8));
    EXPECT_EQ(doc.selection().layer, 1);
}
