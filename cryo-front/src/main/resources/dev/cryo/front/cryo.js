/*
 * cryo's browser client, served by cryo itself at /_cryo/cryo.js (docs/client.md is its manual).
 *
 * One client per page of a tab: it opens the page socket (/_cryo/ws, docs/socket.md), opens the
 * page's channel on it, calls the application's routes over it (a promise per call), hands the
 * application's pushes to whoever subscribed to their kind, pings while it is open, and when the
 * socket drops it reconnects with a growing, jittered delay and opens the page's channel again,
 * telling the page each step — unless the server closed the page for good (close code 4404,
 * "page_closed"): then it stops and says so. No dependencies; defines one global, Cryo.
 */
(function (global) {
  "use strict";

  /** The close code of a socket whose page the server closed for good (docs/socket.md). */
  var PAGE_CLOSED = 4404;

  var DEFAULTS = {
    timeout: 15000,     // ms a call waits for its reply before it is rejected ("timeout")
    pingEvery: 25000,   // ms between pings while open (the front closes a socket silent 10 min)
    minDelay: 500,      // ms before the first reconnect; doubled on each failed one...
    maxDelay: 15000,    // ...up to this; each delay is jittered into [delay/2, delay]
    url: null           // the socket's URL; default: /_cryo/ws of the page's own origin
  };

  /**
   * What a call rejects with. status: the reply's HTTP status, 0 when no reply came; reason: a
   * machine-readable word (the body's "error" when the reply has one; else socket_down,
   * socket_closed, page_closed, timeout, network or closed); body: the reply's body (JSON value or text),
   * headers: its headers (names in lower case).
   */
  function CryoError(message, fields) {
    var error = new Error(message);
    error.name = "CryoError";
    error.status = 0;
    error.reason = null;
    error.body = null;
    error.headers = {};
    for (var key in fields) {
      if (Object.prototype.hasOwnProperty.call(fields, key)) error[key] = fields[key];
    }
    Object.setPrototypeOf(error, CryoError.prototype);
    return error;
  }
  CryoError.prototype = Object.create(Error.prototype);
  CryoError.prototype.constructor = CryoError;

  /** The settled value of a reply {status, headers, body}: its body, or a CryoError. */
  function settle(reply) {
    if (reply.status >= 200 && reply.status < 300) return reply.body;
    var json = reply.body !== null && typeof reply.body === "object" ? reply.body : null;
    var text = json && typeof json.message === "string" ? json.message
        : reply.status + " " + (json ? JSON.stringify(json) : reply.body);
    throw CryoError(text, { status: reply.status, reason: json && json.error ? json.error : null,
      body: reply.body, headers: reply.headers || {} });
  }

  /**
   * A call over plain HTTP (fetch), with the same result and error as a call over the socket: for
   * what comes before a page is known (opening one), or when the socket is down.
   */
  function http(method, path, body) {
    var init = { method: method, headers: {}, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.text().then(function (text) {
        var value = text;
        var type = response.headers.get("Content-Type") || "";
        if (text && /json/i.test(type)) {
          try { value = JSON.parse(text); } catch (e) { /* not JSON after all: text */ }
        } else if (!text) {
          value = null;
        }
        var headers = {};
        response.headers.forEach(function (v, name) { headers[name.toLowerCase()] = v; });
        return settle({ status: response.status, headers: headers, body: value });
      });
    }, function (failure) {
      throw CryoError("the request did not reach the server (" + failure.message + ")",
        { reason: "network" });
    });
  }

  /** Splits "/a?b=1" into the socket call's path and query. */
  function splitPath(path) {
    var mark = path.indexOf("?");
    return mark < 0 ? { path: path, query: "" }
        : { path: path.slice(0, mark), query: path.slice(mark + 1) };
  }

  /**
   * The client of one page: see Cryo.connect. States: "connecting" (the first socket is being
   * opened), "open" (the page's channel is open: calls go), "reconnecting" (the socket dropped; the
   * next attempt is due in `delay` ms), "refused" (the server refused the page's channel; no more
   * attempts), "page_closed" (the server closed the page for good; no more attempts), "closed"
   * (closed by the page).
   */
  function Client(options) {
    this._options = options;
    this._page = options.page;
    this._state = "connecting";
    this._socket = null;       // the current WebSocket, open or opening, or null
    this._nextId = 1;
    this._waiting = new Map(); // call id -> {resolve, reject, timer}
    this._kinds = new Map();   // push kind ("*" for all) -> Set of listeners
    this._stateListeners = new Set();
    this._attempt = 0;         // failed attempts since the channel was last open
    this._retry = null;        // the timer of the next attempt
    this._ping = null;
    this._opens = 0;
    var self = this;
    this._online = function () { if (self._state === "reconnecting") self.reconnect(); };
    if (global.addEventListener) global.addEventListener("online", this._online);
    this._connect();
  }

  Object.defineProperties(Client.prototype, {
    /** The page id this client's channel is for. */
    page: { get: function () { return this._page; } },
    /** The state now (see Client). */
    state: { get: function () { return this._state; } },
    /** Whether calls go now: the page's channel is open. */
    isOpen: { get: function () { return this._state === "open"; } },
    /** How many times the page's channel was opened (1 + the reconnects that succeeded). */
    opens: { get: function () { return this._opens; } }
  });

  /**
   * Calls a route over the socket: resolves with the reply's body (its JSON value, or its text)
   * when the status is 2xx, and follows a 303 with a GET of its Location; rejects with a
   * CryoError otherwise. Rejects at once (reason socket_down) when the channel is not open, with
   * socket_closed when the socket drops before the reply (the call may have run), with timeout
   * after options.timeout ms (the call may still run; its late reply is dropped).
   */
  Client.prototype.call = function (method, path, body, callOptions) {
    var self = this;
    var timeout = (callOptions && callOptions.timeout) || this._options.timeout;
    return this._send(method, path, body, timeout).then(function (reply) {
      var location = reply.headers && reply.headers.location;
      if (reply.status === 303 && location) {
        var target = new URL(location, global.location.href);
        if (target.origin === global.location.origin) {
          return self.call("GET", target.pathname + target.search, undefined, callOptions);
        }
      }
      return settle(reply);
    });
  };

  /** call("GET", path). */
  Client.prototype.get = function (path, callOptions) {
    return this.call("GET", path, undefined, callOptions);
  };

  /** call("POST", path, body). */
  Client.prototype.post = function (path, body, callOptions) {
    return this.call("POST", path, body, callOptions);
  };

  /** A call over plain HTTP: see Cryo.http. */
  Client.prototype.http = http;

  /**
   * Subscribes listener(data, message) to the pushes of this page whose data.kind is `kind`, or
   * to every push of it with "*". Returns a function that unsubscribes it. A listener's throw is
   * reported to the console and does not stop the others.
   */
  Client.prototype.on = function (kind, listener) {
    var listeners = this._kinds.get(kind);
    if (!listeners) this._kinds.set(kind, listeners = new Set());
    listeners.add(listener);
    return function () { listeners.delete(listener); };
  };

  /**
   * Subscribes listener(change) to the client's state: change is {state, attempt, delay, code,
   * reason, error}: attempt counts the failed attempts since the channel was last open, delay is
   * the wait before the next one (reconnecting), code and reason are the socket's close code and
   * reason, error the CryoError of a refused channel. Called at once with the state now. Returns a
   * function that unsubscribes it.
   */
  Client.prototype.onState = function (listener) {
    var self = this;
    this._stateListeners.add(listener);
    deliver(listener, { state: this._state, attempt: this._attempt, delay: 0, code: null,
      reason: null, error: null });
    return function () { self._stateListeners.delete(listener); };
  };

  /** Tries to connect now when reconnecting (after the network came back, say). */
  Client.prototype.reconnect = function () {
    if (this._state !== "reconnecting") return;
    clearTimeout(this._retry);
    this._connect();
  };

  /** Closes the socket for good: pending calls reject (reason closed), no more attempts. */
  Client.prototype.close = function () {
    if (this._state === "closed") return;
    clearTimeout(this._retry);
    clearInterval(this._ping);
    if (global.removeEventListener) global.removeEventListener("online", this._online);
    var socket = this._socket;
    this._socket = null;
    this._failAll("closed", "the client was closed by the page");
    this._setState({ state: "closed" });
    if (socket) socket.close(1000, "closed by the page");
  };

  Client.prototype._send = function (method, path, body, timeout) {
    var self = this;
    var socket = this._socket;
    if (this._state !== "open" || !socket) {
      return Promise.reject(CryoError("the page socket is " + this._state + ": the call was not"
          + " sent; send it again once the client is open, or over HTTP", {
            reason: "socket_down" }));
    }
    return new Promise(function (resolve, reject) {
      var id = self._nextId++;
      var parts = splitPath(path);
      var entry = { resolve: resolve, reject: reject, timer: null };
      entry.timer = setTimeout(function () {
        if (self._waiting.delete(id)) {
          reject(CryoError("no reply to " + method + " " + path + " within " + timeout + " ms;"
              + " the call may still run", { reason: "timeout" }));
        }
      }, timeout);
      self._waiting.set(id, entry);
      socket.send(JSON.stringify({ id: id, type: "call", page: self._page, method: method,
        path: parts.path, query: parts.query, body: body === undefined ? null : body }));
    });
  };

  Client.prototype._failAll = function (reason, text) {
    var waiting = this._waiting;
    this._waiting = new Map();
    waiting.forEach(function (entry) {
      clearTimeout(entry.timer);
      entry.reject(CryoError(text, { reason: reason }));
    });
  };

  Client.prototype._connect = function () {
    var self = this;
    var url = this._options.url || ((global.location.protocol === "https:" ? "wss://" : "ws://")
        + global.location.host + "/_cryo/ws");
    var socket;
    try {
      socket = new WebSocket(url);
    } catch (e) {
      this._dropped(null, 0, e.message);
      return;
    }
    this._socket = socket;
    var openId = this._nextId++;
    var unanswered = setTimeout(function () {
      if (self._socket === socket && self._state !== "open") {
        socket.close(4000, "no answer to the page's open within " + self._options.timeout + " ms");
      }
    }, this._options.timeout);
    socket.onopen = function () {
      socket.send(JSON.stringify({ id: openId, type: "open", page: self._page }));
    };
    socket.onmessage = function (event) {
      if (self._socket !== socket) return;
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (message.type === "push") {
        if (message.page === self._page) self._push(message);
      } else if (message.type === "page_closed") {
        if (message.page === self._page) {
          self._pageClosed(null, null);
          socket.close(1000, "the page was closed by the server");
        }
      } else if (message.id === openId) {
        clearTimeout(unanswered);
        self._opened(socket, message);
      } else if (message.id !== undefined && self._waiting.has(message.id)) {
        var entry = self._waiting.get(message.id);
        self._waiting.delete(message.id);
        clearTimeout(entry.timer);
        entry.resolve({ status: message.status, headers: message.headers || {},
          body: message.body === undefined ? null : message.body });
      }
    };
    socket.onclose = function (event) {
      clearTimeout(unanswered);
      if (event.code === PAGE_CLOSED && self._socket === socket) {
        self._pageClosed(event.code, event.reason);
      } else {
        self._dropped(socket, event.code, event.reason);
      }
    };
  };

  Client.prototype._opened = function (socket, reply) {
    if (reply.status !== 200) {
      var body = reply.body || {};
      this._socket = null;
      socket.close(1000, "the page's channel was refused");
      this._setState({ state: "refused", code: null, reason: body.error || null,
        error: CryoError(body.message || "the page's channel was refused (" + reply.status + ")",
          { status: reply.status, reason: body.error || null, body: reply.body }) });
      return;
    }
    this._attempt = 0;
    this._opens++;
    var self = this;
    clearInterval(this._ping);
    this._ping = setInterval(function () {
      if (self._socket === socket && socket.readyState === 1) {
        socket.send(JSON.stringify({ type: "ping" }));
      }
    }, this._options.pingEvery);
    this._setState({ state: "open" });
  };

  /**
   * The server closed the page for good (the application's closePage): the client stops — no
   * reconnect, since the page is gone — fails the calls still waiting (page_closed) and reports
   * the state "page_closed" with the close's code and reason.
   */
  Client.prototype._pageClosed = function (code, reason) {
    if (this._state === "closed" || this._state === "page_closed") return;
    this._socket = null;
    clearInterval(this._ping);
    clearTimeout(this._retry);
    if (global.removeEventListener) global.removeEventListener("online", this._online);
    this._failAll("page_closed", "the server closed the page before the reply; the call may have"
        + " run");
    this._setState({ state: "page_closed", code: code, reason: reason || "page_closed" });
  };

  Client.prototype._dropped = function (socket, code, reason) {
    if (socket !== null && this._socket !== socket) return; // one closed or refused already
    this._socket = null;
    clearInterval(this._ping);
    this._failAll("socket_closed", "the page socket closed before the reply (" + code
        + (reason ? ": " + reason : "") + "); the call may have run");
    if (this._state === "closed" || this._state === "refused") return;
    this._attempt++;
    var ceiling = Math.min(this._options.maxDelay,
        this._options.minDelay * Math.pow(2, this._attempt - 1));
    var delay = Math.round(ceiling / 2 + Math.random() * ceiling / 2);
    var self = this;
    this._retry = setTimeout(function () { self._connect(); }, delay);
    this._setState({ state: "reconnecting", delay: delay, code: code, reason: reason || null });
  };

  Client.prototype._push = function (message) {
    var data = message.data;
    var kind = data !== null && typeof data === "object" ? data.kind : undefined;
    var targets = [];
    if (kind !== undefined && this._kinds.has(kind)) targets.push(this._kinds.get(kind));
    if (this._kinds.has("*")) targets.push(this._kinds.get("*"));
    targets.forEach(function (listeners) {
      Array.from(listeners).forEach(function (listener) {
        deliver(function () { listener(data, message); });
      });
    });
  };

  Client.prototype._setState = function (fields) {
    this._state = fields.state;
    var change = { state: fields.state, attempt: this._attempt, delay: fields.delay || 0,
      code: fields.code === undefined ? null : fields.code, reason: fields.reason || null,
      error: fields.error || null };
    Array.from(this._stateListeners).forEach(function (listener) {
      deliver(listener, change);
    });
  };

  function deliver(listener, value) {
    try {
      listener(value);
    } catch (e) {
      if (global.console) global.console.error("a cryo listener failed", e);
    }
  }

  global.Cryo = {
    /**
     * Connects the page socket for page `options.page` (an id the application gave, e.g. from a
     * route that calls openPage) and returns its client; options may override DEFAULTS.
     */
    connect: function (options) {
      if (!options || typeof options.page !== "string" || !options.page) {
        throw new TypeError("Cryo.connect({page}) needs the page's id, which the application"
            + " gives (a route that opens a page); nothing was connected");
      }
      var merged = {};
      for (var key in DEFAULTS) merged[key] = DEFAULTS[key];
      for (var given in options) merged[given] = options[given];
      return new Client(merged);
    },
    http: http,
    CryoError: CryoError,
    defaults: DEFAULTS
  };
})(globalThis);
