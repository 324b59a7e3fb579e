"""taor.agent: the session, its turn loop, events, transcript, guards, permissions and hooks."""
