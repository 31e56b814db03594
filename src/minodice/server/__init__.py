"""The server: tables over HTTP and WebSockets (PROTOCOL.md), stored, fair and guarded.

``app`` (routes) → ``lobby`` (tables and seats) → ``room`` (one table's live game, its
connections, clock and bots) → ``play.table.Table`` (the game itself); ``store`` keeps
tables and their event logs, ``botpool`` runs bots in worker processes, ``protocol``
builds and reads the messages.
"""
