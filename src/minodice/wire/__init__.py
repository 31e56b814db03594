"""The table protocol (PROTOCOL.md, ``minodice-table`` version 1) as types: the WebSocket
messages (:mod:`.messages`), the HTTP bodies (:mod:`.http`), their JSON Schemas
(:mod:`.schema`) and the reading of a view back into the engine's :class:`SeatView`
(:mod:`.reading`).

A layer of its own, below the server and the client, which both speak it: the client no
longer imports the protocol from inside the server.
"""
