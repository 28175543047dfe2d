'use strict';
// Progressive enhancement only: every page works without this file. Copy buttons appear when the clipboard can be used.
(function () {

    function copy(button) {
        var target = document.getElementById(button.getAttribute('data-copy'));
        var status = document.getElementById('copy-status');
        var say = function (text) {
            if (status) {
                status.textContent = text;
            }
        };

        navigator.clipboard.writeText(target.value || target.textContent).then(function () {
            say('Copied to the clipboard.');
        }, function () {
            target.focus();
            target.select();
            say('Could not copy: the token is selected, press Ctrl+C (or Cmd+C) to copy it.');
        });
    }

    // The live tail: server-sent events from the dashboard's stream route, each line appended as text. The server
    // ends a stream (`end` event) when the session is signed out, after 5 minutes, or at shutdown; an expired
    // access token ends it too, and a new stream (which refreshes the token) follows at once.
    var ENDED = {
        'signed-out': 'The live tail stopped: this session is signed out.',
        'time-limit': 'The live tail stopped after 5 minutes.',
        'shutdown': 'The live tail stopped: the server is restarting.',
        'error': 'The live tail stopped: the logs could not be read.'
    };

    function tail(box) {
        var list = document.getElementById(box.getAttribute('data-tail-list'));
        var status = document.getElementById(box.getAttribute('data-tail-status'));
        var resume = box.querySelector('.tail-resume');
        var source = null;

        function stop(text) {
            if (source) {
                source.close();
                source = null;
            }

            status.textContent = text;
            resume.hidden = false;
        }

        function start() {
            resume.hidden = true;
            status.textContent = 'Following new log lines…';
            source = new EventSource(box.getAttribute('data-tail'));
            box.setAttribute('data-tail-state', 'open');
            source.addEventListener('line', function (event) {
                var line = JSON.parse(event.data);
                var item = document.createElement('li');
                var time = document.createElement('time');
                var level = document.createElement('span');
                item.className = 'log-' + line.level;
                time.setAttribute('datetime', line.timestamp);
                time.textContent = line.timestamp;
                level.className = 'log-level';
                level.textContent = line.level;
                item.appendChild(time);
                item.appendChild(document.createTextNode(' '));
                item.appendChild(level);
                item.appendChild(document.createTextNode(' ' + line.message));
                list.appendChild(item);
                list.scrollTop = list.scrollHeight;
            });
            source.addEventListener('end', function (event) {
                box.setAttribute('data-tail-state', event.data);
                if (event.data === 'expired') {
                    source.close();
                    start();
                    return;
                }

                stop(ENDED[event.data] || 'The live tail stopped.');
            });
            source.onerror = function () {
                if (source && source.readyState === EventSource.CLOSED) {
                    box.setAttribute('data-tail-state', 'closed');
                    stop('The live tail stopped: reload the page to follow again.');
                }
            };
        }

        resume.addEventListener('click', start);
        start();
    }

    document.addEventListener('DOMContentLoaded', function () {
        if (window.EventSource) {
            document.querySelectorAll('[data-tail]').forEach(tail);
        }

        if (navigator.clipboard && window.isSecureContext) {
            document.querySelectorAll('button[data-copy]').forEach(function (button) {
                button.hidden = false;
                button.addEventListener('click', function () {
                    copy(button);
                });
            });
        }

        document.querySelectorAll('[data-select-on-focus]').forEach(function (input) {
            input.addEventListener('focus', function () {
                input.select();
            });
        });
    });
})();
