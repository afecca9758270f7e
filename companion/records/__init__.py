"""The files a game leaves and the commands that read them: the journal (written safe
against power cuts), its salvage and replay, the readable table record, and rulings on
a position file."""
