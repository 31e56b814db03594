"""Terminal play (Textual): one person against bots, or several around one screen."""
