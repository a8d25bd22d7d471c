package com.example.notes;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import java.util.ArrayList;
import java.util.List;

/** Version 1 of the application, as it was deployed, kept to test the upgrade to version 2. */
public final class NotesV1 implements CryoApplication {

  @StateKey("notebook")
  record Notebook(List<String> notes) {}               // version 1: a note was its text
  record Add(String text) {}

  @Override
  public void routes(Routes routes) {
    routes.post("/api/notes", Add.class, (call, add) ->
        call.user(Notebook.class).update(book -> {
          List<String> notes = new ArrayList<>(book.notes());
          notes.add(add.text());
          return new Notebook(notes);
        }));
  }
}
