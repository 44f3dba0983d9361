"""The main window: the shell the areas live in — navigation built from the table of areas,
the status bar (connection, user, health, last x-request-id), the request log dock, menus —
and the sign-in that starts a session. It holds no service calls of the areas."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QSettings, Signal
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.api.credentials import Credentials
from app.api.errors import ApiConnectionError, ApiError
from app.core import gc_pause
from app.ui.common.names import named
from app.ui.connection.profiles import SANDBOX, SANDBOX_PASSWORD, SANDBOX_PROFILE, ProfileStore
from app.ui.shell.areas import AREAS, Area, AreaContext, AreaSpec
from app.ui.shell.errors import ErrorPresenter
from app.ui.shell.first_paint import AfterFirstPaint
from app.ui.shell.menus import build_menus, new_key_to
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu, QMessageBox

    from app.api.http import Exchange
    from app.ui.connection.profiles import ServerProfile
    from app.ui.connection.sign_in import SignInDialog
    from app.ui.shell.goto import GoToDialog
    from app.ui.shell.request_log import RequestLogDock
    from app.ui.shell.session import Session

A = TypeVar("A", bound=Area)


@dataclass(frozen=True)
class Backend:
    """How to reach the embedded service: a name for the status bar and how to get its URL."""

    name: str
    start: Callable[[], str]  # blocking; run off the GUI thread
    # started ahead of need, it is stopped when the window signs in elsewhere (blocking)
    stop: Callable[[], None] = lambda: None


class MainWindow(QMainWindow):
    area_built = Signal(object)  # an area, just built (its view in the window)

    def __init__(
        self,
        backend: Backend,
        *,
        settings: QSettings | None = None,
        areas: tuple[AreaSpec, ...] = AREAS,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Partner Desk")
        self.setObjectName("mainWindow")
        self.backend = backend
        self.tasks = TaskGroup()
        self.presenter = ErrorPresenter(self)
        self._settings = settings or QSettings("PartnerDesk", "PartnerDesk")
        self.profiles = ProfileStore(self._settings)
        self.credentials = Credentials()
        self.sign_in_dialog: SignInDialog | None = None
        self._sandbox_url: str | None = None
        self.presenter.on_unauthorized = self._unauthorized
        self.context = AreaContext(self.presenter, self.tasks, self._settings, self._open_area)

        self.connection_label = QLabel(f"{backend.name}: starting…")
        self.connection_label.setObjectName("connectionLabel")
        self.health_label = QLabel("Health: unknown")
        self.health_label.setObjectName("healthLabel")
        self.signed_in_label = QLabel("Not signed in")
        self.signed_in_label.setObjectName("signedInLabel")
        self.request_id_label = QLabel("x-request-id: —")
        self.request_id_label.setObjectName("requestIdLabel")
        for widget in (self.connection_label, self.signed_in_label, self.health_label):
            widget.setContentsMargins(6, 0, 12, 0)
            self.statusBar().addWidget(widget)
        self.statusBar().addPermanentWidget(self.request_id_label)

        # navigation between the areas; each area is one page of the stack, built the first
        # time it is shown or used (a faster start)
        self.navigation = QListWidget()
        named(self.navigation, "navigation", "Areas")
        self.navigation.setFixedWidth(150)
        self.pages = QStackedWidget()
        self._specs = {spec.name: spec for spec in areas}
        self.area_specs = areas
        self.new_actions: dict[str, list[QAction]] = {}  # by area, its New … actions (menus)
        self._containers: dict[str, QWidget] = {}
        self._areas: dict[str, Area] = {}
        for spec in areas:
            self._add_page(spec)
        self.navigation.currentRowChanged.connect(self._area_chosen)
        # the first area is chosen now and built just after the window's first paint: its
        # package and widgets cost a fifth of the start, and the frame can show without them
        self._starting = True
        self.navigation.setCurrentRow(0)
        self._first_paint = AfterFirstPaint(self, self._finish_start)

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.navigation)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

        self._request_log: RequestLogDock | None = None  # made just after the first paint
        self.quit_action: QAction
        self.view_menu: QMenu
        self.about_box: QMessageBox | None = None
        self.go_to_dialog: GoToDialog | None = None
        build_menus(self)
        new_key_to(self, self.current_area())

        geometry = self._settings.value("main/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1200, 760)

    @property
    def request_log(self) -> RequestLogDock:
        """The request log dock, made just after the first paint, or when first needed."""
        if self._request_log is None:
            # here: Qt's namespace (its enums' types) costs a sixth of the start
            from PySide6.QtCore import Qt

            from app.ui.shell.request_log import RequestLogDock

            dock = self._request_log = RequestLogDock(self)
            self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            # first in the View menu, as before the others
            toggle = dock.toggleViewAction()
            toggle.setObjectName("action.requestLog")
            self.view_menu.insertAction(self.view_menu.actions()[0], toggle)
            state = self._settings.value("main/state")
            if state is not None:
                self.restoreState(state)
            else:
                # the work area gets the room; the log is there to glance at
                self.resizeDocks([dock], [140], Qt.Orientation.Vertical)
        return self._request_log

    def _title_with_version(self) -> None:
        from app.core.resources import version

        self.setWindowTitle(f"Partner Desk {version()}")

    def show_about(self) -> None:
        from PySide6.QtWidgets import QMessageBox  # here: its type costs the start 30 ms

        from app.core.resources import version

        box = QMessageBox(
            QMessageBox.Icon.Information,
            "About Partner Desk",
            f"Partner Desk {version()}\n\nThe desktop client of the Partner Banking API and the "
            "Card Payment Gateway, with an embedded sandbox of both.",
            QMessageBox.StandardButton.Ok,
            self,
        )
        from app.ui.common.names import name_box

        name_box(box, "aboutBox")
        self.about_box = box
        box.finished.connect(lambda _r: setattr(self, "about_box", None))
        box.open()

    # -- areas

    def _add_page(self, spec: AreaSpec) -> None:
        container = QWidget()
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        self._containers[spec.name] = container
        self.navigation.addItem(f"{spec.name}")
        item = self.navigation.item(self.navigation.count() - 1)
        item.setToolTip(spec.shortcut)
        self.pages.addWidget(container)

    def _build(self, name: str) -> Area:
        """The area, built (its package imported) the first time it is needed."""
        area = self._areas.get(name)
        if area is None:
            from app.ui.common.names import give_accessible_names

            package = importlib.import_module(self._specs[name].package)
            area = package.build(self.context)
            assert area is not None
            self._areas[name] = area
            layout = self._containers[name].layout()
            assert layout is not None
            layout.addWidget(area.view)
            give_accessible_names(area.view)
            area.view.setEnabled(self.context.session is not None)  # usable once signed in
            if self.context.session is not None:
                self.tasks.spawn_awaitable(area.signed_in())
            self.area_built.emit(area)
        return area

    def area(self, kind: type[A]) -> A:
        """The area of that kind, built if it was not yet (it is not shown)."""
        built = self._build(kind.NAME)
        assert isinstance(built, kind)
        return built

    def _open_area(self, name: str) -> Area:
        self.show_area(name)
        return self._build(name)

    def _area_chosen(self, row: int) -> None:
        item = self.navigation.item(row)
        if item is not None and not self._starting:
            self._build(item.text())
        self.pages.setCurrentIndex(row)
        if self.new_actions and item is not None:
            new_key_to(self, item.text())

    def open_go_to(self) -> GoToDialog:
        """The go-to box (Ctrl+K), open beside the window; one at a time."""
        from app.ui.shell.goto import GoToDialog  # when first used: a faster start

        if self.go_to_dialog is None:
            dialog = self.go_to_dialog = GoToDialog(self, parent=self)
            dialog.finished.connect(lambda _result: setattr(self, "go_to_dialog", None))
            dialog.open()  # never exec(): the loop keeps running
        self.go_to_dialog.input.setFocus()
        return self.go_to_dialog

    def area_named(self, name: str) -> Area:
        """The area of that name, built when first needed."""
        return self._build(name)

    def _finish_start(self) -> None:
        """What the first paint could do without: the current area, the request log, a
        selectable label."""
        from PySide6.QtCore import Qt

        if not self._starting:
            return
        self._starting = False
        if self.current_area():
            self._build(self.current_area())
        self.request_log  # noqa: B018 - made now
        self.request_id_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def current_area(self) -> str:
        item = self.navigation.currentItem()
        return item.text() if item is not None else ""

    def area_names(self) -> list[str]:
        """The areas' names, in the navigation's order."""
        return list(self._specs)

    def show_area(self, name: str) -> None:
        from PySide6.QtCore import Qt

        matches = self.navigation.findItems(name, Qt.MatchFlag.MatchExactly)
        if matches:
            self.navigation.setCurrentItem(matches[0])

    def refresh_current(self) -> None:
        """F5: reload what the current area shows, and the service's health."""
        if self.context.session is None:
            return
        self._build(self.current_area()).refresh()
        self.tasks.spawn(self.check_health())

    # -- sessions

    async def connect_backend(self) -> None:
        """Sign in with the last profile: the embedded sandbox at once, a server through the
        sign-in dialog (its password from the keyring)."""
        try:
            await self._connect_last_profile()
        finally:
            # the version once the first page is shown: the metadata lookup costs 20 ms
            self._title_with_version()
            gc_pause.started()

    async def _connect_last_profile(self) -> None:
        if self.profiles.last != SANDBOX:
            import asyncio  # here, not at the top: the window shows before asyncio loads

            self.connection_label.setText(f"{self.profiles.last}: sign in to connect")
            self.open_sign_in()
            # the embedded sandbox was started ahead, in case: not needed now
            await asyncio.get_running_loop().run_in_executor(None, self.backend.stop)
            return
        try:
            await self.use_profile(SANDBOX_PROFILE, SANDBOX_PASSWORD)
        except ApiError as exc:
            self.signed_in_label.setText("Not signed in")
            self.presenter.show(exc, lambda: self.tasks.spawn(self.connect_backend()))

    async def _url_of(self, profile: ServerProfile) -> str:
        if not profile.is_sandbox:
            return profile.base_url
        if self._sandbox_url is None:
            import asyncio  # here, not at the top: the window shows before asyncio loads

            self.connection_label.setText(f"{self.backend.name}: starting…")
            try:
                # off the GUI thread: the sandbox builds its demo data
                self._sandbox_url = await asyncio.get_running_loop().run_in_executor(
                    None, self.backend.start
                )
            except Exception as exc:  # a failed start is shown, never lost
                self.connection_label.setText(f"{self.backend.name}: failed to start ({exc})")
                raise ApiConnectionError(f"{self.backend.name} failed to start: {exc}") from exc
        return self._sandbox_url

    async def use_profile(self, profile: ServerProfile, password: str) -> None:
        """Start a session with this profile; raises ApiError (then the current session stays
        as it was)."""
        from app.ui.shell.session import open_session

        url = await self._url_of(profile)
        session = await open_session(
            profile, password, url, self._on_exchange, self.context.data_dir
        )
        await self._start(session)

    async def _start(self, session: Session) -> None:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        previous, self.context.session = self.context.session, session
        if previous is not None:
            await previous.aclose()
        # the sandbox is named as its backend is (the status bar says which one is in use)
        name = self.backend.name if session.profile.is_sandbox else session.profile.name
        self.connection_label.setText(f"{name} ({session.base_url})")
        self.signed_in_label.setText(f"Signed in as {session.profile.user}")
        loads = []
        for area in self._areas.values():
            area.view.setEnabled(True)
            load = area.signed_in()
            if load is not None:
                loads.append(load)
        await asyncio.gather(*loads)
        await self.check_health()  # after the first pages: they are what a person waits for
        if session.events.sandbox:  # once the first pages are painted: not needed for them
            await session.receive_events()
            self._build("Events")  # it reads the events as they come, for the other areas too

    @property
    def session(self) -> Session | None:
        return self.context.session

    def open_sign_in(
        self, reason: str = "", after_sign_in: Callable[[], object] | None = None
    ) -> None:
        """The sign-in dialog; after a successful sign-in the interrupted action runs again."""
        from app.ui.connection.sign_in import SignInDialog

        if self.sign_in_dialog is not None and self.sign_in_dialog.isVisible():
            return
        session = self.context.session
        dialog = SignInDialog(
            self.profiles,
            self.credentials,
            self.use_profile,
            self.tasks,
            current=session.profile.name if session else None,
            reason=reason,
            parent=self,
        )
        if after_sign_in is not None:
            dialog.accepted.connect(after_sign_in)
        self.sign_in_dialog = dialog
        dialog.open()  # never exec(): the loop keeps running

    def _unauthorized(self, after_sign_in: Callable[[], object] | None) -> None:
        self.signed_in_label.setText("Sign-in refused")
        self.open_sign_in(
            "The service refused the credentials (401): sign in again.", after_sign_in
        )

    async def check_health(self) -> None:
        session = self.context.session
        if session is None:
            return
        self.health_label.setText("Health: checking…")
        try:
            result = await session.banking.healthcheck()
        except ApiError as exc:
            self.health_label.setText(f"Health: unavailable ({exc})")
            self.health_label.setStyleSheet("color: #b3261e;")
            return
        self.health_label.setText(f"Health: {result.result}")
        self.health_label.setStyleSheet("color: #1b7f3b;")

    def _on_exchange(self, exchange: Exchange) -> None:
        self.request_id_label.setText(f"x-request-id: {exchange.request_id}")
        self.request_log.model.append(exchange)

    async def idle(self) -> None:
        """Return once no call is in flight and no load runs: every task the window, its
        areas and its dialogs started has ended."""
        await self.tasks.idle()

    # -- shutdown

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        self._settings.setValue("main/geometry", self.saveGeometry())
        self._settings.setValue("main/state", self.saveState())
        self.tasks.cancel_all()
        super().closeEvent(event)

    async def aclose(self) -> None:
        """Stop what still runs, then close the connection."""
        await self.tasks.aclose()
        if self.context.session is not None:
            await self.context.session.aclose()
