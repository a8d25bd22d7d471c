package com.example.notes;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.LoginResult;
import dev.cryo.app.Refusal;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import dev.cryo.app.StoredState;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The application of docs/guide.md ("Your first cryo application"): notes per user, shown in
 * every tab he has open; a draft per tab; a theme per browser; a login. Every code block of the
 * guide is a piece of this file, of its page or of its tests (GuideTest checks it).
 */
public final class Notes implements CryoApplication {

  // state: plain records, kept by cryo as plain data
  record Note(String text, long at) {}                 // one note; at = epoch milliseconds
  @StateKey("notebook")                                // its stored name, whatever the class
  record Notebook(List<Note> notes) {}                 // per user: on every browser and tab
  record Theme(String name) {}                         // per connection: one browser
  record Draft(String text) {}                         // per page: one tab

  record NotebookV1(List<String> notes) {}             // what version 1 stored as "notebook"

  // request bodies, read from JSON
  record Add(String text) {}
  record Typing(String page, String text) {}
  record Login(String user) {}

  // a reply, written as JSON
  record Shown(String user, List<Note> notes, String theme) {}

  private static final String PAGE = resource("index.html");

  @Override
  public void routes(Routes routes) {
    routes.get("/", call -> Response.html(PAGE));
    routes.post("/api/pages", call -> Map.of("page", call.openPage()));
    routes.get("/api/notes", call -> new Shown(call.user(),
        call.user(Notebook.class).get().notes(), call.connection(Theme.class).get().name()));
    routes.post("/api/notes", Add.class, (call, add) -> {
      if (add.text() == null || add.text().isBlank()) {
        throw new Refusal(400, "empty_note", "a note needs some text; nothing was added");
      }
      Notebook notebook = call.user(Notebook.class).update(book -> {
        List<Note> notes = new ArrayList<>(book.notes());
        notes.add(new Note(add.text().strip(), System.currentTimeMillis()));
        return new Notebook(notes);
      });
      call.pushToUser(Map.of("kind", "notes", "notes", notebook.notes())); // every tab of his
      return notebook;
    });
    routes.get("/api/draft", call -> call.page(call.query("page"), Draft.class).get());
    routes.post("/api/draft", Typing.class, (call, typing) ->
        call.page(typing.page(), Draft.class).update(draft -> new Draft(typing.text())));
    routes.post("/api/theme", Theme.class, (call, theme) -> {
      call.connection(Theme.class).set(theme);
      return theme;
    });
    routes.post("/api/login", Login.class, (call, login) -> {
      if (call.login(login.user()) == LoginResult.ELSEWHERE) {
        return Response.seeOther("/api/notes");  // his next request is served where he lives
      }
      return new Shown(call.user(), call.user(Notebook.class).get().notes(),
          call.connection(Theme.class).get().name());
    });
  }

  @Override
  public int stateVersion() {
    return 2;                                          // version 1 kept notes as plain strings
  }

  @Override
  public Object upgrade(StoredState stored) {
    if (stored.key().equals("notebook") && stored.version() == 1) {
      List<Note> notes = new ArrayList<>();
      for (String text : stored.as(NotebookV1.class).notes()) {
        notes.add(new Note(text, 0));                  // when it was written is unknown: 0
      }
      return new Notebook(notes);
    }
    return stored.value();                             // anything else reads as it is
  }

  private static String resource(String name) {
    try (InputStream in = Notes.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the application's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
