"""The progress bar draws its busy state itself, a step at a time, and leaves a bar with a
count to the style."""

from __future__ import annotations

from PySide6.QtWidgets import QProxyStyle, QStyle

from app.ui.common.progress import ProgressBar

Element = QStyle.ControlElement


class RecordingStyle(QProxyStyle):
    """The style, noting each control element it is asked to draw."""

    def __init__(self) -> None:
        super().__init__("Fusion")
        self.drawn: list[Element] = []

    def drawControl(self, element, option, painter, widget=None):
        self.drawn.append(element)
        super().drawControl(element, option, painter, widget)


def shown_bar(qtbot) -> tuple[ProgressBar, RecordingStyle]:
    style = RecordingStyle()
    bar = ProgressBar()
    bar.setStyle(style)
    qtbot.addWidget(bar)
    bar.resize(220, 24)
    bar.setRange(0, 0)
    bar.show()
    bar.grab()  # painted (a shown widget's paint is not awaited: offscreen, it may never come)
    return bar, style


def test_busy_the_style_draws_the_groove_but_never_its_own_busy_contents(qtbot):
    bar, style = shown_bar(qtbot)
    style.drawn.clear()
    bar.grab()
    # drawing the contents busy is what starts the style's 60-a-second animation
    assert Element.CE_ProgressBarGroove in style.drawn
    assert Element.CE_ProgressBarContents not in style.drawn
    assert bar.animating


def test_the_busy_chunk_moves_a_step_at_each_tick(qtbot):
    bar, _style = shown_bar(qtbot)
    first = bar.grab().toImage()
    bar._advance()
    second = bar.grab().toImage()
    assert first != second
    for _ in range(31):  # there and back: the chunk is where it started
        bar._advance()
    assert bar.grab().toImage() == first


def test_hidden_or_given_a_count_it_stops_stepping_and_the_style_draws_it(qtbot):
    bar, style = shown_bar(qtbot)
    assert bar.animating
    bar.hide()
    assert not bar.animating
    bar.grab()  # a picture of a hidden bar does not set it moving
    assert not bar.animating
    bar.show()
    bar.grab()
    assert bar.animating
    bar.setRange(0, 10)
    bar.setValue(4)
    style.drawn.clear()
    bar.grab()
    assert not bar.animating
    assert Element.CE_ProgressBarContents in style.drawn
    bar.setRange(0, 0)  # busy again, as an export's end sets it
    bar.grab()
    assert bar.animating
