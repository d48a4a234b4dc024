#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return (sqlite3_destructor_type)-1; }

// sqlite3_db_config is variadic, which Swift cannot call: leaves the database file as it is when
// the connection closes (no final checkpoint of the WAL into it).
static inline int csqlite_skip_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

// Turns off the triggers of the main schema for this connection alone (sqlite3_db_config is
// variadic): the store's own writes do not fire the triggers that count writes made by any
// other program (see HistorySQL.foreignWriteTriggers).
static inline int csqlite_disable_triggers(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
}
