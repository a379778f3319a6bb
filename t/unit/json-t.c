/* json-t.c -- the JSON writer. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/json.h"
#include "tap.h"

int
main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, 0);
	json_obj_begin(&j);
	json_key(&j, "s");
	json_str(&j, "a\"b\\c\n\x01\xff\xc3\xa9");
	json_key(&j, "a");
	json_arr_begin(&j);
	json_int(&j, -3);
	json_num(&j, 0.5);
	json_num(&j, NAN);
	json_null(&j);
	json_bool(&j, 1);
	json_arr_end(&j);
	json_key(&j, "e");
	json_obj_begin(&j);
	json_obj_end(&j);
	json_obj_end(&j);
	json_finish(&j);
	fclose(f);
	is_str(buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\","
	    "\"a\":[-3,0.5,null,null,true],\"e\":{}}\n",
	    "compact output, escapes, invalid UTF-8 replaced, NaN is null");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	json_init(&j, f, 1);
	json_arr_begin(&j);
	json_int(&j, 1);
	json_arr_begin(&j);
	json_arr_end(&j);
	json_arr_end(&j);
	json_finish(&j);
	fclose(f);
	is_str(buf, "[\n  1,\n  []\n]\n", "pretty output indents");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	json_escape(f, "\x1b[2J \xc2\x9b" "1m \xc2\x85 \x7f \xc2\xa0", 17);
	fclose(f);
	is_str(buf, "\\u001b[2J \\u009b1m \\u0085 \\u007f \xc2\xa0",
	    "C0, DEL and C1 controls escaped; U+00A0 kept");
	free(buf);
	return done_testing();
}
