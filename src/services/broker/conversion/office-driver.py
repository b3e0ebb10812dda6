#!/usr/bin/python3
"""
One LibreOffice instance of the OfficeConverter pool, driven over UNO (python3-uno, stdlib only).

Started by OfficeConverter.ts in a process group of its own. It starts soffice itself, connects
to it over a named UNO pipe, then reads JSON-line requests on stdin and answers JSON lines on
stdout (soffice's own output goes to stderr):

  -> {"event": "ready", "pid": <soffice pid>, "startMs": <ms>}           once, when usable
  -> {"event": "failed", "detail": "..."}                                 when it could not start
  <- {"id": 1, "input": "/blob", "extension": "docx", "filters": ["MS Word 2007 XML"],
      "filterOptions": null, "output": "/out.pdf.partial", "maxCells": 1000000, "html": false}
  -> {"id": 1, "ok": true, "ms": 52, "kind": "text"}
  -> {"id": 1, "ok": false, "reason": "password" | "unreadable" | "too-many-cells" | "crashed",
      "detail": "...", "cells": 123}

soffice.bin is started directly (not through the launcher script and oosplash), so it is the
driver's own child. A thread reads stdin; at EOF (the pool stops this instance, or the Node process
is gone, however it died) it kills soffice, reaps it and exits, so nothing outlives the broker.
When soffice dies the driver exits too (code 3): the pool sees the exit and starts a new instance.
"""
import argparse
import hashlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import uno
import unohelper
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import DisposedException
from com.sun.star.task import XInteractionHandler

# com.sun.star.document.MacroExecMode.NEVER_EXECUTE and UpdateDocMode.NO_UPDATE
MACRO_NEVER_EXECUTE = 0
UPDATE_NO_UPDATE = 0

out_lock = threading.Lock()
# Held while soffice is launched, and for good by finish(): no soffice can be started unseen.
launch_lock = threading.Lock()
finish_lock = threading.Lock()
shutting_down = threading.Event()
driver = None
args = None


def finish(code):
    """The one way out: kill and reap soffice, remove the instance's files, exit. Runs once; any
    other thread that gets here waits for the exit."""
    finish_lock.acquire()
    launch_lock.acquire()
    shutting_down.set()
    kill_everything(driver.soffice if driver else None)
    if args is not None:
        remove_leftovers(args)
    os._exit(code)


def emit(message):
    try:
        with out_lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()
    except (OSError, ValueError):
        finish(0)  # nobody reads our answers any more: the pool is gone


def log(message):
    try:
        sys.stderr.write("[office-driver] %s\n" % message)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def descendants(root):
    """Processes below root, found through /proc (used when we do not lead our process group)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split(" ")[1])
        except (OSError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            found.append(child)
            todo.append(child)
    return found


def kill_everything(soffice):
    """Kills soffice and whatever it started, and reaps it, so no zombie is left behind."""
    if soffice is None:
        return
    for pid in descendants(soffice.pid) + [soffice.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        soffice.wait(timeout=5)
    except Exception:
        pass


def resolve_soffice(command):
    """soffice.bin itself when `command` is the soffice launcher script: one process, our own child."""
    found = shutil.which(command)
    if found:
        program = os.path.dirname(os.path.realpath(found))
        binary = os.path.join(program, "soffice.bin")
        if os.path.basename(os.path.realpath(found)) == "soffice" and os.access(binary, os.X_OK):
            return binary
    return command


class AbortingInteraction(unohelper.Base, XInteractionHandler):
    """Answers every question LibreOffice asks with Abort, noting whether it asked for a password."""

    def __init__(self):
        self.password_requested = False
        self.requests = 0

    def handle(self, request):
        try:
            self.requests += 1
            continuations = request.getContinuations()
            kinds = []
            for c in continuations:
                try:
                    kinds.append([t.typeName for t in c.getTypes()])
                except Exception:
                    kinds.append([])
            if any(("com.sun.star.task.XInteractionPassword" in k or "com.sun.star.task.XInteractionPassword2" in k) for k in kinds):
                self.password_requested = True
            for wanted in ("com.sun.star.task.XInteractionAbort", "com.sun.star.task.XInteractionDisapprove"):
                for c, k in zip(continuations, kinds):
                    if wanted in k:
                        c.select()
                        return
        except Exception as e:  # an exception here would leave LibreOffice waiting for an answer
            log("interaction handler: %r" % (e,))


KINDS = (
    ("com.sun.star.sheet.SpreadsheetDocument", "spreadsheet", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "presentation", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "drawing", "draw_pdf_Export"),
    ("com.sun.star.text.WebDocument", "web", "writer_web_pdf_Export"),
    ("com.sun.star.text.TextDocument", "text", "writer_pdf_Export"),
)

META_CHARSET = re.compile(rb"(<meta\b[^>]*?charset\s*=\s*[\"']?)([A-Za-z0-9_.:\-]+)", re.IGNORECASE)


class Failure(Exception):
    def __init__(self, reason, detail, **extra):
        Exception.__init__(self, detail)
        self.reason = reason
        self.detail = detail
        self.extra = extra


class Driver:
    def __init__(self, args):
        self.args = args
        self.soffice = None
        self.desktop = None
        self.ctx = None

    # ---- start ----------------------------------------------------------------------------------
    def start(self):
        started = time.monotonic()
        profile_url = uno.systemPathToFileUrl(os.path.abspath(self.args.profile))
        command = [
            resolve_soffice(self.args.soffice),
            "-env:UserInstallation=" + profile_url,
            "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck",
            "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % self.args.pipe,
        ]
        env = dict(os.environ, SAL_ENABLE_FILE_LOCKING="1")
        launches = 0

        def launch():
            with launch_lock:
                if shutting_down.is_set():
                    raise RuntimeError("shutting down")
                self.soffice = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(), stderr=sys.stderr.fileno(), env=env)

        launch()
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = started + self.args.start_timeout
        url = "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % self.args.pipe
        while True:
            code = self.soffice.poll()
            # 81: soffice.bin asks to be started again (what oosplash does for the launcher script).
            if code == 81 and launches < 3:
                launches += 1
                launch()
                continue
            if code is not None:
                raise RuntimeError("soffice exited with code %s before accepting connections" % code)
            try:
                self.ctx = resolver.resolve(url)
                break
            except NoConnectException:
                if time.monotonic() > deadline:
                    raise RuntimeError("soffice did not accept a connection within %g s" % self.args.start_timeout)
                time.sleep(0.05)
        threading.Thread(target=self.watch_soffice, args=(self.soffice,), daemon=True).start()
        smgr = self.ctx.ServiceManager
        self.desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", self.ctx)
        self.configure(smgr)
        self.warm_up()
        return int((time.monotonic() - started) * 1000)

    def configure(self, smgr):
        """Hardening of the fresh profile: no macros, no fetching of linked resources from the network."""
        provider = smgr.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", self.ctx)
        settings = [
            ("/org.openoffice.Office.Common/Security/Scripting", {
                "MacroSecurityLevel": 3,
                "DisableMacrosExecution": True,
                "BlockUntrustedRefererLinks": True,
            }),
            # Linked images, style sheets and frames of HTML and office files would be fetched over
            # HTTP(S)/FTP: a proxy on the discard port makes every such fetch fail at once.
            ("/org.openoffice.Inet/Settings", {
                "ooInetProxyType": 2,
                "ooInetNoProxy": "",
                "ooInetHTTPProxyName": "127.0.0.1", "ooInetHTTPProxyPort": 9,
                "ooInetHTTPSProxyName": "127.0.0.1", "ooInetHTTPSProxyPort": 9,
                "ooInetFTPProxyName": "127.0.0.1", "ooInetFTPProxyPort": 9,
            }),
        ]
        for path, values in settings:
            access = provider.createInstanceWithArguments("com.sun.star.configuration.ConfigurationUpdateAccess", (prop("nodepath", path),))
            for name, value in values.items():
                try:
                    access.setPropertyValue(name, value)
                except Exception as e:
                    log("could not set %s/%s: %r" % (path, name, e))
            access.commitChanges()

    def warm_up(self):
        """Loads Writer, Calc and Impress and their PDF export once, so the first real conversion is warm."""
        target = uno.systemPathToFileUrl(os.path.join(self.args.workdir, "warm-up.pdf"))
        for factory, export in (("swriter", "writer_pdf_Export"), ("scalc", "calc_pdf_Export"), ("simpress", "impress_pdf_Export")):
            doc = self.desktop.loadComponentFromURL("private:factory/" + factory, "_blank", 0, (prop("Hidden", True),))
            try:
                doc.storeToURL(target, (prop("FilterName", export),))
            finally:
                doc.close(True)
        os.remove(os.path.join(self.args.workdir, "warm-up.pdf"))

    def watch_soffice(self, soffice):
        code = soffice.wait()
        if not shutting_down.is_set():
            log("soffice exited with code %s" % code)
            finish(3)

    # ---- conversions ----------------------------------------------------------------------------
    def prepare_input(self, request):
        """The blob has no extension: a symlink (or, for HTML, a copy declaring UTF-8) with the right one."""
        # The name shows: Calc names a CSV's sheet after its file and prints it in the page header.
        # One conversion at a time per instance, so a fixed name does not collide.
        base = "Sheet1" if request["extension"] == "csv" else "document"
        path = os.path.join(self.args.workdir, "%s.%s" % (base, request["extension"]))
        if os.path.lexists(path):
            os.remove(path)
        if request.get("html"):
            with open(request["input"], "rb") as f:
                data = f.read()
            # The caller transcoded to UTF-8; a charset left in a <meta> would make LibreOffice decode it wrongly.
            data = META_CHARSET.sub(lambda m: m.group(1) + b"utf-8", data)
            with open(path, "wb") as f:
                f.write(data)
        else:
            os.symlink(os.path.abspath(request["input"]), path)
        return path

    def load(self, url, request):
        detail = "no filter accepted it"
        for name in request["filters"]:
            interaction = AbortingInteraction()
            props = [
                prop("Hidden", True),
                prop("ReadOnly", True),
                prop("MacroExecutionMode", MACRO_NEVER_EXECUTE),
                prop("UpdateDocMode", UPDATE_NO_UPDATE),
                prop("InteractionHandler", interaction),
                prop("FilterName", name),
            ]
            if request.get("filterOptions"):
                props.append(prop("FilterOptions", request["filterOptions"]))
            doc = None
            try:
                doc = self.desktop.loadComponentFromURL(url, "_blank", 0, tuple(props))
            except DisposedException:
                raise
            except Exception as e:
                message = getattr(e, "Message", None) or repr(e)
                if "disposed" in message.lower() and "bridge" in message.lower():
                    raise
                detail = "%s: %s" % (name, message.split(" at ./")[0])
            if interaction.password_requested:
                if doc is not None:
                    doc.close(True)
                raise Failure("password", "the document asks for a password")
            if doc is not None:
                return doc
            if interaction.requests:
                detail = "%s rejected it" % name
        raise Failure("unreadable", detail)

    def convert(self, request):
        started = time.monotonic()
        path = self.prepare_input(request)
        try:
            doc = self.load(uno.systemPathToFileUrl(path), request)
            try:
                kind, export = next(((k, e) for service, k, e in KINDS if doc.supportsService(service)), (None, None))
                if kind is None:
                    raise Failure("unreadable", "LibreOffice opened it as a document it cannot export to PDF")
                max_cells = request.get("maxCells")
                if kind == "spreadsheet" and max_cells is not None:
                    cells = used_cells(doc)
                    if cells > max_cells:
                        raise Failure("too-many-cells", "%d used cells" % cells, cells=cells)
                try:
                    doc.storeToURL(uno.systemPathToFileUrl(request["output"]), (prop("FilterName", export),))
                except DisposedException:
                    raise
                except Exception as e:
                    raise Failure("crashed", "the PDF export failed: %s" % (getattr(e, "Message", None) or repr(e)))
            finally:
                close(doc)
        finally:
            try:
                os.remove(path)
            except OSError:
                pass
        return {"ok": True, "ms": int((time.monotonic() - started) * 1000), "kind": kind}


def used_cells(doc):
    """Sum over the sheets of the used area (rows × columns from its first to its last used cell)."""
    total = 0
    sheets = doc.getSheets()
    for i in range(sheets.getCount()):
        cursor = sheets.getByIndex(i).createCursor()
        cursor.gotoStartOfUsedArea(False)
        cursor.gotoEndOfUsedArea(True)
        a = cursor.getRangeAddress()
        total += (a.EndRow - a.StartRow + 1) * (a.EndColumn - a.StartColumn + 1)
    return total


def close(doc):
    try:
        doc.close(True)
    except DisposedException:
        raise
    except Exception:
        try:
            doc.dispose()
        except Exception:
            pass


def ipc_pipe_names(args):
    """The socket files soffice makes in /tmp and leaves there when killed: the UNO pipe, and the
    single-instance pipe named after the MD5 of the profile URL (UTF-16LE, bytes in unpadded hex)."""
    url = uno.systemPathToFileUrl(os.path.abspath(args.profile))
    digest = "".join(format(b, "x") for b in hashlib.md5(url.encode("utf-16-le")).digest())
    uid = os.getuid()
    return ["/tmp/OSL_PIPE_%d_%s" % (uid, args.pipe), "/tmp/OSL_PIPE_%d_SingleOfficeIPC_%s" % (uid, digest)]


def remove_leftovers(args):
    """The instance directory (when asked) and the pipes' socket files."""
    if args.remove_on_exit:
        shutil.rmtree(args.remove_on_exit, ignore_errors=True)
        try:
            os.rmdir(os.path.dirname(os.path.abspath(args.remove_on_exit)))  # the pool's directory, once empty
        except OSError:
            pass
    for name in ipc_pipe_names(args):
        try:
            os.remove(name)
        except OSError:
            pass


def main():
    global driver, args
    parser = argparse.ArgumentParser()
    parser.add_argument("--soffice", default="soffice")
    parser.add_argument("--profile", required=True, help="directory of the LibreOffice user profile (created)")
    parser.add_argument("--workdir", required=True, help="private directory for input links (created)")
    parser.add_argument("--pipe", required=True, help="unique UNO pipe name")
    parser.add_argument("--start-timeout", type=float, default=60.0)
    parser.add_argument("--remove-on-exit", default=None, help="instance directory removed on exit, with its parent once empty")
    args = parser.parse_args()
    os.makedirs(args.profile, exist_ok=True)
    os.makedirs(args.workdir, exist_ok=True)

    driver = Driver(args)
    requests = queue.Queue()

    def read_stdin():
        try:
            for line in sys.stdin.buffer:
                if line.strip():
                    requests.put(line)
        finally:
            finish(0)  # EOF: the pool stops this instance, or the Node process is gone

    signal.signal(signal.SIGTERM, lambda *_: finish(0))
    threading.Thread(target=read_stdin, daemon=True).start()

    try:
        start_ms = driver.start()
    except Exception as e:
        emit({"event": "failed", "detail": getattr(e, "Message", None) or str(e)})
        finish(2)
    emit({"event": "ready", "pid": driver.soffice.pid, "startMs": start_ms})

    while True:
        line = requests.get()
        try:
            request = json.loads(line)
        except ValueError:
            log("ignoring a line that is not JSON")
            continue
        reply = {"id": request.get("id")}
        try:
            reply.update(driver.convert(request))
        except Failure as f:
            reply.update({"ok": False, "reason": f.reason, "detail": f.detail}, **f.extra)
        except Exception as e:
            # The bridge is gone (soffice crashed) or LibreOffice threw something unexpected: report
            # and exit, the pool starts a fresh instance.
            reply.update({"ok": False, "reason": "crashed", "detail": getattr(e, "Message", None) or repr(e)})
            emit(reply)
            finish(3)
        emit(reply)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        if not isinstance(e, SystemExit):
            log("stopping: %r" % (e,))
        finish(3)
