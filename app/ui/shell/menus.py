"""The main window's menus, which show the way: File with a New … action for everything that
can be created (Ctrl+N beside the one of the area shown), Go with every area and its shortcut,
View, Connection and Help. The shortcuts live on these actions only, so a menu always shows
the keys that work."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from app.ui.shell.areas import Creates

# app.ui.shell.main_window.MainWindow, which builds its menus here: importing it back, even
# for its type, would make an import circle
MainWindow = Any

NEW_KEY = "Ctrl+N"


def _action(window: MainWindow, text: str, name: str, keys: list[QKeySequence]) -> QAction:
    action = QAction(text, window)
    action.setObjectName(name)
    # setShortcuts, not setShortcut: choosing among its overloads makes the types of Qt's
    # whole namespace, a tenth of the start
    action.setShortcuts(keys)
    window.addAction(action)  # its keys work wherever the focus is in the window
    return action


def build_menus(window: MainWindow) -> None:
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    window.new_actions = {}
    for spec in window.area_specs:
        for made in spec.creates:
            new = _action(window, made.label, f"action.new.{made.key}", [])

            def create(_checked: bool = False, area: str = spec.name, call: Creates = made) -> None:
                window.show_area(area)
                method = getattr(window.area_named(area), call.method)
                if call.argument:
                    method(call.argument)
                else:
                    method()

            new.triggered.connect(create)
            file_menu.addAction(new)
            window.new_actions.setdefault(spec.name, []).append(new)
    file_menu.addSeparator()
    # Ctrl+Q everywhere, plus the platform's own quit key where it has another
    keys = [QKeySequence("Ctrl+Q"), *QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)]
    window.quit_action = _action(window, "Quit", "action.quit", list(dict.fromkeys(keys)))
    window.quit_action.triggered.connect(window.close)
    file_menu.addAction(window.quit_action)

    go_menu = bar.addMenu("&Go")
    go_to = _action(window, "Go to…", "action.goTo", [QKeySequence("Ctrl+K")])
    go_to.setToolTip("Go to an IBAN, e-mail, order, client or request (Ctrl+K)")
    go_to.triggered.connect(window.open_go_to)
    go_menu.addAction(go_to)
    go_menu.addSeparator()
    tools = window.addToolBar("Go to")
    tools.setObjectName("goToToolbar")
    tools.setMovable(False)
    tools.addAction(go_to)
    button = tools.widgetForAction(go_to)
    if button is not None:
        button.setObjectName("goToButton")
    for spec in window.area_specs:
        go = _action(window, spec.name, f"action.go.{spec.package.rsplit('.', 1)[-1]}", [])
        go.setShortcuts([QKeySequence(spec.shortcut)])
        go.triggered.connect(lambda _checked=False, name=spec.name: window.show_area(name))
        go_menu.addAction(go)

    view_menu = window.view_menu = bar.addMenu("&View")  # the log's toggle: later
    refresh = _action(window, "Refresh", "action.refresh", [QKeySequence("F5")])
    refresh.triggered.connect(window.refresh_current)
    view_menu.addAction(refresh)
    health = _action(window, "Check health", "action.checkHealth", [])
    health.triggered.connect(lambda: window.tasks.spawn(window.check_health()))
    view_menu.addAction(health)

    connection_menu = bar.addMenu("&Connection")
    sign_in = _action(window, "Sign in…", "action.signIn", [])
    sign_in.triggered.connect(lambda: window.open_sign_in())
    connection_menu.addAction(sign_in)

    help_menu = bar.addMenu("&Help")
    about = _action(window, "About Partner Desk", "action.about", [])
    about.triggered.connect(window.show_about)
    help_menu.addAction(about)


def new_key_to(window: MainWindow, area: str) -> None:
    """Ctrl+N creates what the area shown creates first (a person in Clients, an order in
    Orders): the key moves to that area's first New … action, as the File menu shows."""
    for name, actions in window.new_actions.items():
        for index, action in enumerate(actions):
            mine = name == area and index == 0
            action.setShortcuts([QKeySequence(NEW_KEY)] if mine else [])
