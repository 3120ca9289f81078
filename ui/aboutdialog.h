#pragma once
/// \file aboutdialog.h
/// Help ▸ About: the version of TreeLens and of the libraries it runs on
/// (Qt, LibTorch and its device, Graphviz, QCustomPlot) and the parsers built in.

class QWidget;

namespace treelens {

void showAboutDialog(QWidget *parent);

} // namespace treelens
