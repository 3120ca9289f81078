// The pattern languages' cheat sheet (see querysyntaxhelp.h), after docs/grew.md and docs/tregex.md.
#include "ui/querysyntaxhelp.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace treelens {

namespace {

struct Example {
    const char *pattern;
    const char *what;
};

const Example kExamples[] = {
    {"pattern { V [upos=VERB]; S []; V -[nsubj]-> S }", "The subject of every verb (Grew)"},
    {"pattern { N [upos=NOUN]; A [upos=ADJ]; N -[amod]-> A; A < N }", "An adjective right before the noun it modifies (Grew)"},
    {"pattern { V [upos=VERB] } without { V -[obj]-> O }", "Verbs without a direct object (Grew)"},
    {"VP < /^VB/=verb < NP=obj", "A verb phrase with its verb and a noun phrase in it, named verb and obj (Tregex)"},
};

QString sheet()
{
    QString examples;
    int i = 0;
    for (const Example &e : kExamples)
        examples += QStringLiteral("<p style=\"margin:4px 0\">%3:<br>&nbsp;&nbsp;<a href=\"example:%1\"><code>%2</code></a></p>")
                        .arg(i++)
                        .arg(QString::fromUtf8(e.pattern).toHtmlEscaped(), QString::fromUtf8(e.what));
    return QStringLiteral(
               "<h3>Examples <small>(click one to put it in the field)</small></h3>"
               "%1"
               "<h3>Grew requests: dependency trees</h3>"
               "<p>The text is a Grew request when it starts with <code>pattern {</code>, <code>with {</code> or "
               "<code>without {</code>; anything else is a Tregex pattern. Items are separated by <code>;</code>.</p>"
               "<table cellspacing=3>"
               "<tr><td><code>X [upos=VERB, Number=Sing]</code></td><td>a word with these features (form, lemma, upos, "
               "xpos, any FEATS or MISC name)</td></tr>"
               "<tr><td><code>X [lemma=be|have]</code><br><code>X [upos&lt;&gt;PUNCT]</code></td><td>one of these values / "
               "present with none of them</td></tr>"
               "<tr><td><code>X [form=re\".*ing\"]</code><br><code>X [Tense]</code><br><code>X [!Tense]</code></td><td>a regular "
               "expression on the whole value; the feature present / absent</td></tr>"
               "<tr><td><code>X -[nsubj]-&gt; Y</code><br><code>X -&gt; Y</code></td><td>an edge from X to Y with this "
               "relation / any relation</td></tr>"
               "<tr><td><code>X -[1=nsubj]-&gt; Y</code><br><code>X -[^punct]-&gt; Y</code></td><td>the relation or its "
               "subtypes (nsubj:pass) / any relation but this</td></tr>"
               "<tr><td><code>X -*-&gt; Y</code></td><td>X dominates Y</td></tr>"
               "<tr><td><code>X &lt; Y</code><br><code>X &lt;&lt; Y</code></td><td>X right before Y / anywhere before Y</td></tr>"
               "<tr><td><code>X.lemma = Y.lemma</code></td><td>a feature equal on both</td></tr>"
               "<tr><td><code>without { X -[obj]-&gt; O }</code></td><td>no such extension exists "
               "(<code>with { … }</code>: one does)</td></tr>"
               "</table>"
               "<p>Every distinct binding of the pattern's nodes is one occurrence; distinct nodes are distinct words.</p>"
               "<h3>Tregex patterns: constituency trees</h3>"
               "<table cellspacing=3>"
               "<tr><td><code>NP</code><br><code>NP|NX</code><br><code>/^VB/</code><br><code>__</code></td><td>a node with this "
               "label / one of these / a label the regular expression finds / any node</td></tr>"
               "<tr><td><code>@NP</code><br><code>!NP</code></td><td>the label without function tags / not this</td></tr>"
               "<tr><td><code>A &lt; B</code><br><code>A &gt; B</code></td><td>B is a child / the parent of A</td></tr>"
               "<tr><td><code>A &lt;&lt; B</code><br><code>A &gt;&gt; B</code></td><td>B is under / above A</td></tr>"
               "<tr><td><code>A $+ B</code><br><code>A $ B</code></td><td>B is the next sister / a sister of A</td></tr>"
               "<tr><td><code>A . B</code><br><code>A .. B</code></td><td>B comes right after / somewhere after A</td></tr>"
               "<tr><td><code>A &lt;1 B</code><br><code>A &lt;- B</code><br><code>A &lt;: B</code></td><td>B is the first / last "
               "/ only child</td></tr>"
               "<tr><td><code>A !&lt; B</code><br><code>A ?&lt; B</code></td><td>no such B / B if there is one</td></tr>"
               "<tr><td><code>A &lt; B &lt; C</code><br><code>A [&lt; B | &lt; C]</code><br><code>A &lt; (B &lt; C)</code></td>"
               "<td>both / either / nested</td></tr>"
               "<tr><td><code>NP=obj</code></td><td>names the node: the tree views label it, and the attention "
               "statistic can use it</td></tr>"
               "</table>"
               "<p>Labels with punctuation are written as regular expressions: <code>/^,$/</code>. The whole languages: "
               "docs/grew.md and docs/tregex.md.</p>")
        .arg(examples);
}

} // namespace

QuerySyntaxHelp::QuerySyntaxHelp(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Pattern syntax"));
    setWindowFlag(Qt::Tool);
    setModal(false);
    auto *layout = new QVBoxLayout(this);
    m_text = new QTextBrowser(this);
    m_text->setOpenLinks(false);
    m_text->setHtml(sheet());
    layout->addWidget(m_text, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    connect(m_text, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        if (url.scheme() == QLatin1String("example"))
            chooseExample(url.path().toInt());
    });
    resize(720, 640);
}

QStringList QuerySyntaxHelp::examples()
{
    QStringList out;
    for (const Example &e : kExamples)
        out << QString::fromUtf8(e.pattern);
    return out;
}

void QuerySyntaxHelp::chooseExample(int index)
{
    const QStringList all = examples();
    if (index >= 0 && index < all.size())
        Q_EMIT exampleChosen(all[index]);
}

} // namespace treelens
