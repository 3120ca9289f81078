#pragma once
/// \file parserchoice.h
/// Which parser the app uses: the configuration restored from the settings at
/// start-up (the window and the offscreen export alike), and the questions a
/// backend needs answered when the user picks it in the View dock.

#include <optional>

#include <QString>

#include "core/parsing/parser.h"

class QWidget;

namespace treelens {

/// The saved parser: the saved backend (the default one when the saved name is
/// unknown) with its saved command and tree file; typed sentences of more than
/// 60 words are parsed in clause-sized pieces (see ParserConfig::chunkLongerThan).
ParserConfig savedParserConfig();

/// `current` switched to backend `name`, after asking what that backend needs:
/// the command line for "external", the parsed file for "file" (loaded once to
/// check it; a warning names what is wrong). The answers are saved in the
/// settings. nullopt when the user cancels or the file does not load.
std::optional<ParserConfig> askParserConfig(QWidget *parent, const ParserConfig &current, const QString &name);

} // namespace treelens
